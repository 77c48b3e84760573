// Tests of the portable torchedge::conv2d_winograd_blocked (python/
// torchedge/passes/conv2d_winograd_blocked_op.py is the definition): the
// filter recovery and the packed layout on hand-checked filters (a single
// tap, exact), the rounding and clamp order, NaN kept; then against a
// straightforward double reference (g = H U H^T as matrix products, then
// the direct convolution) over paddings, channel counts and partial weight
// groups, with infinities and NaN in the input; then every argument error
// by name. The Python harness (tests/ops/op_table_nn.py) compares the
// kernel with eager on random data.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The kernel fails with `expected` and its message contains `words`.
void expect_error(Error got, Error expected, const char* words) {
  EXPECT_EQ(got, expected);
  EXPECT_NE(std::string(last_error_message()).find(words), std::string::npos)
      << "message: " << last_error_message();
}

// F(2x2, 3x3)'s G and H (H G = I).
constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kH[3][4] = {{1, 0, 0, 0}, {0, 1, -1, 0}, {0, 0, 0, 1}};

// Index of point xi of filter (co, ci) in the packed [16, groups, cin_blocks, 1024].
size_t packed_at(int groups, int cin_blocks, int xi, int co, int ci) {
  return ((static_cast<size_t>(xi) * groups + co / 64) * cin_blocks + ci / 16) * 1024 +
         (ci % 16) * 64 + co % 64;
}

// Packed filters whose (co, co) filter is `scale` at tap (kh, kw) and every
// other filter zero: U = G g G^T of a single tap, exact in float.
std::vector<float> single_tap_filters(int cout, int cin_blocks, int kh, int kw, float scale) {
  const int groups = (cout + 63) / 64;
  std::vector<float> u(static_cast<size_t>(16 * groups * cin_blocks * 1024), 0.0f);
  for (int co = 0; co < cout && co < cin_blocks * 16; ++co) {
    for (int xi = 0; xi < 16; ++xi) {
      u[packed_at(groups, cin_blocks, xi, co, co)] =
          static_cast<float>(scale * kG[xi / 4][kh] * kG[xi % 4][kw]);
    }
  }
  return u;
}

TEST(Conv2dWinogradBlocked, CenterTapBiasResidualClamp) {
  // Cin = Cout = 16, padding 1: the center tap copies input channel c to
  // output channel c, times 2; then bias 0.5 c, residual 1, clamp [0, 20].
  TestTensor x(ScalarType::Float, {1, 1, 3, 4, 16});
  x.fill(arange(192, 0.25f, -8.0f));
  TestTensor u(ScalarType::Float, {16, 1, 1, 1024});
  u.fill(single_tap_filters(16, 1, 1, 1, 2.0f));
  TestTensor bias(ScalarType::Float, {16});
  bias.fill(arange(16, 0.5f));
  TestTensor residual(ScalarType::Float, {1, 1, 3, 4, 16});
  residual.fill(std::vector<float>(192, 1.0f));
  TestTensor out(ScalarType::Float, {1, 1, 3, 4, 16});
  ASSERT_EQ(Args().t(x).t(u).t(bias).t(residual).i(16).ints({1, 1}).d(0.0).d(20.0).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 1, 3, 4, 16}));
  std::vector<float> want(192);
  for (int i = 0; i < 192; ++i) {
    const float v = (2.0f * (0.25f * i - 8.0f) + 0.5f * (i % 16)) + 1.0f;
    want[i] = std::fmin(20.0f, std::fmax(0.0f, v));
  }
  EXPECT_EQ(out.values<float>(), want);
}

TEST(Conv2dWinogradBlocked, CornerTapShiftsThroughAsymmetricPadding) {
  // Tap (0, 0) with padding (1, 0): out(oh, ow) = in(oh - 1, ow), zero in
  // the first row. cout 80: the second packed group is a quarter full, its
  // lanes past channel 32 of the input are zero filters.
  TestTensor x(ScalarType::Float, {1, 5, 3, 4, 16});
  x.fill(arange(5 * 12 * 16, 1.0f, 1.0f));
  TestTensor u(ScalarType::Float, {16, 2, 5, 1024});
  u.fill(single_tap_filters(80, 5, 0, 0, 1.0f));
  TestTensor out(ScalarType::Float, {1, 5, 3, 2, 16});
  ASSERT_EQ(Args().t(x).t(u).none().none().i(80).ints({1, 0}).d(-kInf).d(kInf).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 5, 3, 2, 16}));
  const std::vector<float> got = out.values<float>();
  for (int cb = 0; cb < 5; ++cb) {
    for (int oh = 0; oh < 3; ++oh) {
      for (int ow = 0; ow < 2; ++ow) {
        for (int l = 0; l < 16; ++l) {
          const float want = oh == 0 ? 0.0f : 1.0f + (((cb * 3 + oh - 1) * 4 + ow) * 16 + l);
          EXPECT_EQ(got[((cb * 3 + oh) * 2 + ow) * 16 + l], want)
              << "block " << cb << " (" << oh << ", " << ow << ") lane " << l;
        }
      }
    }
  }
}

TEST(Conv2dWinogradBlocked, NanReachesTheWindowsHoldingItThroughTheClamp) {
  // The center tap without padding: out(oh, ow) = in(oh + 1, ow + 1), then
  // clamp [0, 6]. A NaN at input pixel (0, 0) lies only in output (0, 0)'s
  // window, where every lane reads it (0 * NaN: the zero filters of the
  // other channels), as in eager's direct sums.
  TestTensor x(ScalarType::Float, {1, 1, 4, 4, 16});
  x.fill(arange(256, 0.1f, -10.0f));
  x.at<float>(5) = kNan;  // pixel (0, 0), lane 5
  TestTensor u(ScalarType::Float, {16, 1, 1, 1024});
  u.fill(single_tap_filters(16, 1, 1, 1, 1.0f));
  TestTensor out(ScalarType::Float, {1, 1, 2, 2, 16});
  ASSERT_EQ(Args().t(x).t(u).none().none().i(16).ints({0}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);
  const std::vector<float> xs = x.values<float>(), y = out.values<float>();
  for (int p = 0; p < 4; ++p) {
    for (int l = 0; l < 16; ++l) {
      if (p == 0) {
        EXPECT_TRUE(std::isnan(y[l])) << l;
        continue;
      }
      const float in = xs[(((p / 2) + 1) * 4 + (p % 2) + 1) * 16 + l];
      EXPECT_EQ(y[p * 16 + l], std::fmin(6.0f, std::fmax(0.0f, in))) << p << " " << l;
    }
  }
}

struct Shape {
  int n, cin_blocks, cout, h, w, ph, pw;
};

// out of a valid call in double: g = H U H^T per filter, the direct sums,
// + bias, + residual, clamp. `scale` gets the sum of |terms| of each output
// (what float rounding is relative to).
std::vector<double> reference(const Shape& s, const std::vector<float>& x,
                              const std::vector<float>& u, const std::vector<float>* bias,
                              const std::vector<float>* residual, double lo, double hi,
                              std::vector<double>* scale) {
  const int groups = (s.cout + 63) / 64, cin = s.cin_blocks * 16;
  const int oh_size = s.h + 2 * s.ph - 2, ow_size = s.w + 2 * s.pw - 2;
  std::vector<double> g(static_cast<size_t>(s.cout) * cin * 9);
  for (int co = 0; co < s.cout; ++co) {
    for (int ci = 0; ci < cin; ++ci) {
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          double sum = 0.0;
          for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
              sum += kH[a][i] * u[packed_at(groups, s.cin_blocks, 4 * i + j, co, ci)] * kH[b][j];
            }
          }
          g[((static_cast<size_t>(co) * cin + ci) * 3 + a) * 3 + b] = sum;
        }
      }
    }
  }
  std::vector<double> y;  // [n, co / 16, oh, ow, co % 16]
  scale->clear();
  const int cout_blocks = s.cout / 16;
  for (int n = 0; n < s.n; ++n) {
    for (int cob = 0; cob < cout_blocks; ++cob) {
      for (int oh = 0; oh < oh_size; ++oh) {
        for (int ow = 0; ow < ow_size; ++ow) {
          for (int l = 0; l < 16; ++l) {
            const int co = cob * 16 + l;
            double acc = 0.0, mag = 0.0;
            for (int ci = 0; ci < cin; ++ci) {
              for (int kh = 0; kh < 3; ++kh) {
                for (int kw = 0; kw < 3; ++kw) {
                  const int ih = oh + kh - s.ph, iw = ow + kw - s.pw;
                  if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                  const double term =
                      x[((((n * s.cin_blocks + ci / 16) * s.h + ih) * s.w + iw) * 16) + ci % 16] *
                      g[((static_cast<size_t>(co) * cin + ci) * 3 + kh) * 3 + kw];
                  acc += term;
                  mag += std::fabs(term);
                }
              }
            }
            if (bias != nullptr) acc += (*bias)[co];
            const size_t at = y.size();
            if (residual != nullptr) acc += (*residual)[at];
            y.push_back(std::isnan(acc) ? acc : std::fmin(hi, std::fmax(lo, acc)));
            scale->push_back(mag + 1.0);
          }
        }
      }
    }
  }
  return y;
}

TEST(Conv2dWinogradBlocked, MatchesReference) {
  const Shape shapes[] = {
      {1, 1, 16, 6, 7, 1, 1},  {2, 2, 48, 5, 5, 1, 1},  {1, 3, 80, 7, 6, 0, 0},
      {1, 1, 144, 4, 5, 2, 1}, {2, 2, 32, 3, 3, 0, 0},  {1, 1, 64, 1, 4, 1, 0},
      {1, 2, 16, 9, 4, 0, 2},  {1, 4, 128, 5, 5, 1, 1},
  };
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int index = 0;
  for (const Shape& s : shapes) {
    SCOPED_TRACE(index);
    const bool with_bias = index % 2 == 0, with_residual = index % 3 != 1;
    const double lo = index % 4 == 0 ? 0.0 : -kInf, hi = index % 4 == 0 ? 6.0 : kInf;
    const bool special = index % 3 == 2;  // infinities and NaN in the input
    ++index;
    const int groups = (s.cout + 63) / 64, oh = s.h + 2 * s.ph - 2, ow = s.w + 2 * s.pw - 2;
    std::vector<float> xv(static_cast<size_t>(s.n * s.cin_blocks * s.h * s.w * 16));
    std::vector<float> uv(static_cast<size_t>(16 * groups * s.cin_blocks * 1024));
    std::vector<float> bv(static_cast<size_t>(s.cout));
    std::vector<float> rv(static_cast<size_t>(s.n * s.cout * oh * ow));
    for (std::vector<float>* v : {&xv, &uv, &bv, &rv}) {
      for (float& e : *v) e = dist(gen);
    }
    if (special) {
      xv[5] = kInfF;
      xv[xv.size() / 2] = -kInfF;
      xv[xv.size() - 3] = kNan;
    }
    std::vector<double> scale;
    const std::vector<double> want = reference(s, xv, uv, with_bias ? &bv : nullptr,
                                               with_residual ? &rv : nullptr, lo, hi, &scale);
    // Contiguous, and lanes outermost (the input is read through its strides).
    for (const std::vector<uint8_t>& order :
         {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 4, 1, 2, 3}}) {
      TestTensor x(ScalarType::Float, {s.n, s.cin_blocks, s.h, s.w, 16}, order);
      x.fill(xv);
      TestTensor u(ScalarType::Float, {16, groups, s.cin_blocks, 1024});
      u.fill(uv);
      TestTensor bias(ScalarType::Float, {s.cout});
      bias.fill(bv);
      TestTensor residual(ScalarType::Float, {s.n, s.cout / 16, oh, ow, 16});
      residual.fill(rv);
      TestTensor out(ScalarType::Float, {s.n, s.cout / 16, oh, ow, 16});
      Args args;
      args.t(x).t(u);
      with_bias ? args.t(bias) : args.none();
      with_residual ? args.t(residual) : args.none();
      // No temp allocator: the reference needs no scratch memory.
      ASSERT_EQ(args.i(s.cout).ints({s.ph, s.pw}).d(lo).d(hi).t(out)
                    .run(native::conv2d_winograd_blocked_out, /*with_temp=*/false),
                Error::Ok);
      EXPECT_EQ(out.shape(), (std::vector<int32_t>{s.n, s.cout / 16, oh, ow, 16}));
      const std::vector<float> got = out.values<float>();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
          ASSERT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
        } else if (std::isinf(want[i])) {
          ASSERT_EQ(got[i], want[i]) << i;
        } else {
          ASSERT_NEAR(got[i], want[i], 2e-6 * scale[i]) << i;
        }
      }
    }
  }
}

// A valid call (two input blocks, cout 16, padding 1 on a 4x4 map); each
// error case replaces arguments through `edit`.
struct Call {
  TestTensor x{ScalarType::Float, {1, 2, 4, 4, 16}};
  TestTensor u{ScalarType::Float, {16, 1, 2, 1024}};
  TestTensor out{ScalarType::Float, {1, 1, 4, 4, 16}};
  TestTensor* input = &x;
  TestTensor* filters = &u;
  TestTensor* bias = nullptr;
  TestTensor* residual = nullptr;
  int64_t cout = 16;
  std::vector<int64_t> padding{1, 1};
  double lo = 0.0, hi = 6.0;
  TestTensor* output = &out;
};

template <typename Edit>
Error run_call(Edit edit) {
  Call c;
  edit(c);
  Args args;
  args.t(*c.input).t(*c.filters);
  c.bias == nullptr ? args.none() : args.t(*c.bias);
  c.residual == nullptr ? args.none() : args.t(*c.residual);
  return args.i(c.cout).ints(c.padding).d(c.lo).d(c.hi).t(*c.output)
      .run(native::conv2d_winograd_blocked_out);
}

TEST(Conv2dWinogradBlocked, TensorErrors) {
  EXPECT_EQ(run_call([](Call&) {}), Error::Ok);
  TestTensor ints(ScalarType::Int, {1, 2, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.input = &ints; }), Error::InvalidType,
               "conv2d_winograd_blocked.out: input");
  TestTensor nchw(ScalarType::Float, {1, 32, 4, 4}), last8(ScalarType::Float, {1, 4, 4, 4, 8});
  for (TestTensor* bad : {&nchw, &last8}) {
    expect_error(run_call([&](Call& c) { c.input = bad; }), Error::InvalidArgument,
                 "input must be blocked [N, C/16, H, W, 16]");
  }
  for (int64_t bad : {24, 0, -16, 8}) {
    expect_error(run_call([&](Call& c) { c.cout = bad; }), Error::InvalidArgument,
                 "out_channels must be a positive multiple of 16");
  }
  expect_error(run_call([](Call& c) { c.cout = 80; }),  // needs two packed groups
               Error::InvalidArgument, "filter_u_packed must be a contiguous [16, 2, 2, 1024]");
  TestTensor u_ints(ScalarType::Int, {16, 1, 2, 1024});
  expect_error(run_call([&](Call& c) { c.filters = &u_ints; }), Error::InvalidType,
               "conv2d_winograd_blocked.out: filter_u_packed");
  TestTensor u_points(ScalarType::Float, {9, 1, 2, 1024});
  TestTensor u_cin(ScalarType::Float, {16, 1, 1, 1024});
  TestTensor u_lanes(ScalarType::Float, {16, 1, 2, 256});
  TestTensor u_5d(ScalarType::Float, {16, 1, 2, 1, 1024});
  TestTensor u_3d(ScalarType::Float, {16, 2, 1024});
  TestTensor u_strided(ScalarType::Float, {16, 1, 2, 1024}, {1, 0, 2, 3});
  for (TestTensor* bad : {&u_points, &u_cin, &u_lanes, &u_5d, &u_3d, &u_strided}) {
    expect_error(run_call([&](Call& c) { c.filters = bad; }), Error::InvalidArgument,
                 "filter_u_packed must be a contiguous [16, 1, 2, 1024]");
  }
  TestTensor bias32(ScalarType::Float, {32}), bias_2d(ScalarType::Float, {1, 16});
  for (TestTensor* bad : {&bias32, &bias_2d}) {
    expect_error(run_call([&](Call& c) { c.bias = bad; }), Error::InvalidArgument,
                 "bias must be [16]");
  }
  TestTensor bias_ints(ScalarType::Int, {16});
  expect_error(run_call([&](Call& c) { c.bias = &bias_ints; }), Error::InvalidType,
               "conv2d_winograd_blocked.out: bias");
  TestTensor small(ScalarType::Float, {1, 1, 2, 2, 16}), nchw_res(ScalarType::Float, {1, 16, 4, 4});
  for (TestTensor* bad : {&small, &nchw_res}) {
    expect_error(run_call([&](Call& c) { c.residual = bad; }), Error::InvalidArgument,
                 "residual must be a contiguous [1, 1, 4, 4, 16]");
  }
  TestTensor res_ints(ScalarType::Int, {1, 1, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.residual = &res_ints; }), Error::InvalidType,
               "conv2d_winograd_blocked.out: residual");
  TestTensor out_ints(ScalarType::Int, {1, 1, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.output = &out_ints; }), Error::InvalidType,
               "conv2d_winograd_blocked.out: out");
  TestTensor out_small(ScalarType::Float, {1, 1, 2, 2, 16});  // below the planned bound
  EXPECT_NE(run_call([&](Call& c) { c.output = &out_small; }), Error::Ok);
  TestTensor out_lanes_first(ScalarType::Float, {1, 1, 4, 4, 16}, {0, 4, 1, 2, 3});
  expect_error(run_call([&](Call& c) { c.output = &out_lanes_first; }), Error::InvalidArgument,
               "out must be contiguous");
  expect_error(run_call([](Call& c) { c.residual = &c.out; }), Error::InvalidArgument,
               "residual must not overlap out");
}

TEST(Conv2dWinogradBlocked, OperandsOverlappingOutAreErrors) {
  // out accumulates while the input, filters and bias are still read.
  TestTensor storage(ScalarType::Float, {40000});
  float* base = storage.get()->mutable_data_as<float>();
  FloatView x(base, {1, 1, 4, 4, 16}), out(base + 20000, {1, 1, 4, 4, 16});
  FloatView u_over(base + 19000, {16, 1, 1, 1024}), u_apart(base + 1000, {16, 1, 1, 1024});
  FloatView bias_over(base + 20100, {16});
  auto run = [&](FloatView& u, Tensor* bias, FloatView& o) {
    Args args;
    args.t(&x.tensor).t(&u.tensor);
    bias == nullptr ? args.none() : args.t(bias);
    return args.none().i(16).ints({1}).d(-kInf).d(kInf).t(&o.tensor)
        .run(native::conv2d_winograd_blocked_out);
  };
  EXPECT_EQ(run(u_apart, nullptr, out), Error::Ok);
  expect_error(run(u_over, nullptr, out), Error::InvalidArgument,
               "filter_u_packed must not overlap out");
  expect_error(run(u_apart, &bias_over.tensor, out), Error::InvalidArgument,
               "bias must not overlap out");
  FloatView out_on_x(base + 100, {1, 1, 4, 4, 16});
  expect_error(run(u_apart, nullptr, out_on_x), Error::InvalidArgument,
               "input must not overlap out");
}

TEST(Conv2dWinogradBlocked, GeometryAndBoundErrors) {
  for (const std::vector<int64_t>& padding :
       {std::vector<int64_t>{-1}, std::vector<int64_t>{0, -1}}) {
    expect_error(run_call([&](Call& c) { c.padding = padding; }), Error::InvalidArgument,
                 "padding must be >= 0");
  }
  for (const std::vector<int64_t>& padding :
       {std::vector<int64_t>{}, std::vector<int64_t>{1, 1, 1}}) {
    expect_error(run_call([&](Call& c) { c.padding = padding; }), Error::InvalidArgument,
                 "padding must have 1 or 2 values");
  }
  TestTensor tiny(ScalarType::Float, {1, 2, 2, 4, 16});
  expect_error(run_call([&](Call& c) {
                 c.input = &tiny;
                 c.padding = {0};
               }),
               Error::InvalidArgument, "the padded input (2 x 4) is smaller than the 3 x 3 filter");
  TestTensor one_pixel_out(ScalarType::Float, {1, 1, 1, 1, 16});
  TestTensor three(ScalarType::Float, {1, 2, 3, 3, 16});
  EXPECT_EQ(run_call([&](Call& c) {  // a 3x3 input without padding: one output pixel
              c.input = &three;
              c.padding = {0};
              c.output = &one_pixel_out;
            }),
            Error::Ok);
  EXPECT_EQ(one_pixel_out.shape(), (std::vector<int32_t>{1, 1, 1, 1, 16}));
  const double nan = std::nan("");
  expect_error(run_call([](Call& c) { c.lo = 6.5; }), Error::InvalidArgument,
               "need output_min <= output_max");
  expect_error(run_call([&](Call& c) { c.lo = nan; }), Error::InvalidArgument,
               "need output_min <= output_max");
  expect_error(run_call([&](Call& c) { c.hi = nan; }), Error::InvalidArgument,
               "need output_min <= output_max");
  EXPECT_EQ(run_call([](Call& c) { c.lo = c.hi = 1.0; }), Error::Ok);  // min == max
}

TEST(Conv2dWinogradBlocked, ArgumentCountAndKinds) {
  TestTensor x(ScalarType::Float, {1, 1, 4, 4, 16}), u(ScalarType::Float, {16, 1, 1, 1024});
  TestTensor out(ScalarType::Float, {1, 1, 4, 4, 16});
  EXPECT_NE(Args().t(x).t(u).none().none().i(16).ints({1}).d(0.0).d(6.0)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);  // out missing
  EXPECT_NE(Args().t(x).t(u).none().none().i(16).i(1).d(0.0).d(6.0).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);  // padding not a list
  EXPECT_NE(Args().t(x).t(u).none().none().ints({16}).ints({1}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);  // out_channels not an int
  EXPECT_NE(Args().t(x).t(u).i(3).none().i(16).ints({1}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);  // bias neither a tensor nor None
  EXPECT_EQ(Args().t(x).t(u).none().none().i(16).ints({1}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_winograd_blocked_out),
            Error::Ok);
}

}  // namespace
}  // namespace torchedge
