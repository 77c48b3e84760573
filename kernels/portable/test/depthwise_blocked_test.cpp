// Tests of the portable torchedge::conv2d_depthwise_blocked (python/
// torchedge/passes/conv2d_blocked_op.py is the definition): the lane and
// tap mapping on hand-checked values, bias and clamp order, NaN kept; then
// against a straightforward float reference over strides, paddings and
// filter sizes (any dim order of the input); then every argument error by
// name. The optimized kernel's tests (kernels/optimized/test/
// depthwise_blocked_test.cpp) compare both against the same reference.
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
constexpr double kInf = std::numeric_limits<double>::infinity();

// The kernel fails with `expected` and its message contains `words`.
void expect_error(Error got, Error expected, const char* words) {
  EXPECT_EQ(got, expected);
  EXPECT_NE(std::string(last_error_message()).find(words), std::string::npos)
      << "message: " << last_error_message();
}

TEST(Conv2dDepthwiseBlocked, LanesTapsBiasAndClamp) {
  // One block, a 3x3 map holding 1..9 in every lane; lane l's filter is
  // l + 1 at tap (0, 1) and 1 at tap (2, 2), zero elsewhere. Padding 1,
  // stride 1: output (oh, ow) of lane l is (l + 1) * in(oh - 1, ow) +
  // in(oh + 1, ow + 1), taps outside the map skipped; bias 0.5 l; clamp to
  // [0, 40].
  TestTensor x(ScalarType::Float, {1, 1, 3, 3, 16});
  std::vector<float> image(9 * 16);
  for (int p = 0; p < 9; ++p) {
    for (int l = 0; l < 16; ++l) image[p * 16 + l] = static_cast<float>(p + 1);
  }
  x.fill(image);
  TestTensor w(ScalarType::Float, {1, 3, 3, 16});
  std::vector<float> filters(9 * 16, 0.0f);
  for (int l = 0; l < 16; ++l) {
    filters[1 * 16 + l] = static_cast<float>(l + 1);  // tap (0, 1)
    filters[8 * 16 + l] = 1.0f;                         // tap (2, 2)
  }
  w.fill(filters);
  TestTensor bias(ScalarType::Float, {16});
  bias.fill(arange(16, 0.5f));
  TestTensor out(ScalarType::Float, {1, 1, 3, 3, 16});
  ASSERT_EQ(Args().t(x).t(w).t(bias).ints({1}).ints({1}).d(0.0).d(40.0).t(out)
                .run(native::conv2d_depthwise_blocked_out),
            Error::Ok);
  std::vector<float> want(9 * 16);
  for (int oh = 0; oh < 3; ++oh) {
    for (int ow = 0; ow < 3; ++ow) {
      for (int l = 0; l < 16; ++l) {
        float v = 0.5f * l;
        if (oh >= 1) v += (l + 1.0f) * (3 * (oh - 1) + ow + 1);
        if (oh + 1 < 3 && ow + 1 < 3) v += 3 * (oh + 1) + ow + 2;
        want[(oh * 3 + ow) * 16 + l] = std::fmin(40.0f, std::fmax(0.0f, v));
      }
    }
  }
  EXPECT_EQ(out.values<float>(), want);
}

TEST(Conv2dDepthwiseBlocked, NanStaysNanThroughTheClamp) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 2, 16});
  x.fill(arange(64, 1.0f, -30.0f));
  x.at<float>(3 * 16 + 5) = kNan;  // pixel (1, 1), lane 5
  TestTensor w(ScalarType::Float, {1, 1, 1, 16});
  w.fill(std::vector<float>(16, 1.0f));
  TestTensor out(ScalarType::Float, {1, 1, 2, 2, 16});
  ASSERT_EQ(Args().t(x).t(w).none().ints({1, 1}).ints({0, 0}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_depthwise_blocked_out),
            Error::Ok);
  const std::vector<float> y = out.values<float>();
  for (int i = 0; i < 64; ++i) {
    if (i == 3 * 16 + 5) {
      EXPECT_TRUE(std::isnan(y[i]));
    } else {
      EXPECT_EQ(y[i], std::fmin(6.0f, std::fmax(0.0f, i - 30.0f))) << i;
    }
  }
}

struct Shape {
  int n, cb, h, w, kh, kw, sh, sw, ph, pw;
};

// out of a valid call, from the reference's definition (float, (kh, kw) order).
std::vector<float> reference(const Shape& s, const std::vector<float>& x,
                             const std::vector<float>& w, const std::vector<float>* bias,
                             float lo, float hi) {
  const int oh_size = (s.h + 2 * s.ph - s.kh) / s.sh + 1, ow_size = (s.w + 2 * s.pw - s.kw) / s.sw + 1;
  std::vector<float> y;
  for (int plane = 0; plane < s.n * s.cb; ++plane) {
    const int cb = plane % s.cb;
    for (int oh = 0; oh < oh_size; ++oh) {
      for (int ow = 0; ow < ow_size; ++ow) {
        for (int l = 0; l < 16; ++l) {
          float acc = 0.0f;
          for (int kh = 0; kh < s.kh; ++kh) {
            for (int kw = 0; kw < s.kw; ++kw) {
              const int ih = oh * s.sh - s.ph + kh, iw = ow * s.sw - s.pw + kw;
              if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
              acc += x[((plane * s.h + ih) * s.w + iw) * 16 + l] *
                     w[((cb * s.kh + kh) * s.kw + kw) * 16 + l];
            }
          }
          if (bias != nullptr) acc += (*bias)[cb * 16 + l];
          y.push_back(acc < lo ? lo : (acc > hi ? hi : acc));
        }
      }
    }
  }
  return y;
}

TEST(Conv2dDepthwiseBlocked, MatchesReference) {
  const Shape shapes[] = {
      {2, 3, 9, 9, 3, 3, 1, 1, 1, 1},   {1, 2, 8, 8, 3, 3, 2, 2, 1, 1},
      {1, 2, 9, 17, 3, 3, 2, 2, 0, 0},  {2, 1, 12, 13, 5, 5, 1, 1, 2, 2},
      {1, 2, 11, 13, 3, 3, 1, 2, 1, 0}, {1, 1, 6, 7, 5, 3, 2, 1, 2, 1},
      {1, 4, 7, 7, 1, 1, 1, 1, 0, 0},   {1, 1, 3, 4, 3, 3, 1, 1, 3, 3},
      {2, 1, 1, 1, 3, 3, 1, 1, 1, 1},   {1, 6, 2, 3, 3, 3, 1, 1, 1, 1},
  };
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int index = 0;
  for (const Shape& s : shapes) {
    SCOPED_TRACE(index);
    const bool with_bias = index % 2 == 0;
    const float lo = index % 3 == 0 ? 0.0f : -INFINITY, hi = index % 3 == 0 ? 6.0f : INFINITY;
    ++index;
    std::vector<float> xv(static_cast<size_t>(s.n * s.cb * s.h * s.w * 16));
    std::vector<float> wv(static_cast<size_t>(s.cb * s.kh * s.kw * 16));
    std::vector<float> bv(static_cast<size_t>(s.cb * 16));
    for (std::vector<float>* v : {&xv, &wv, &bv}) {
      for (float& e : *v) e = dist(gen);
    }
    const std::vector<float> want = reference(s, xv, wv, with_bias ? &bv : nullptr, lo, hi);
    const int oh = (s.h + 2 * s.ph - s.kh) / s.sh + 1, ow = (s.w + 2 * s.pw - s.kw) / s.sw + 1;
    // Contiguous, and lanes outermost (any dim order is read through the strides).
    for (const std::vector<uint8_t>& order :
         {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 4, 1, 2, 3}}) {
      TestTensor x(ScalarType::Float, {s.n, s.cb, s.h, s.w, 16}, order);
      x.fill(xv);
      TestTensor w(ScalarType::Float, {s.cb, s.kh, s.kw, 16});
      w.fill(wv);
      TestTensor bias(ScalarType::Float, {s.cb * 16});
      bias.fill(bv);
      TestTensor out(ScalarType::Float, {s.n, s.cb, oh, ow, 16});
      Args args;
      args.t(x).t(w);
      if (with_bias) {
        args.t(bias);
      } else {
        args.none();
      }
      ASSERT_EQ(args.ints({s.sh, s.sw}).ints({s.ph, s.pw}).d(lo).d(hi).t(out)
                    .run(native::conv2d_depthwise_blocked_out),
                Error::Ok);
      EXPECT_EQ(out.shape(), (std::vector<int32_t>{s.n, s.cb, oh, ow, 16}));
      const std::vector<float> got = out.values<float>();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << i;
      }
    }
  }
}

// A valid call (two blocks, 3x3, padding 1 on a 4x4 map); each error case
// replaces arguments through `edit`.
struct Call {
  TestTensor x{ScalarType::Float, {1, 2, 4, 4, 16}};
  TestTensor w{ScalarType::Float, {2, 3, 3, 16}};
  TestTensor out{ScalarType::Float, {1, 2, 4, 4, 16}};
  TestTensor* input = &x;
  TestTensor* weight = &w;
  TestTensor* bias = nullptr;
  std::vector<int64_t> stride{1, 1}, padding{1, 1};
  double lo = 0.0, hi = 6.0;
  TestTensor* output = &out;
};

template <typename Edit>
Error run_call(Edit edit) {
  Call c;
  edit(c);
  Args args;
  args.t(*c.input).t(*c.weight);
  if (c.bias == nullptr) {
    args.none();
  } else {
    args.t(*c.bias);
  }
  return args.ints(c.stride).ints(c.padding).d(c.lo).d(c.hi).t(*c.output)
      .run(native::conv2d_depthwise_blocked_out);
}

TEST(Conv2dDepthwiseBlocked, TensorErrors) {
  EXPECT_EQ(run_call([](Call&) {}), Error::Ok);
  TestTensor ints(ScalarType::Int, {1, 2, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.input = &ints; }), Error::InvalidType,
               "conv2d_depthwise_blocked.out: input");
  TestTensor nchw(ScalarType::Float, {1, 32, 4, 4}), last8(ScalarType::Float, {1, 4, 4, 4, 8});
  for (TestTensor* bad : {&nchw, &last8}) {
    expect_error(run_call([&](Call& c) { c.input = bad; }), Error::InvalidArgument,
                 "input must be blocked [N, C/16, H, W, 16]");
  }
  TestTensor no_rows(ScalarType::Float, {1, 2, 0, 4, 16}), no_blocks(ScalarType::Float, {1, 0, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.input = &no_rows; }), Error::InvalidArgument,
               "input dim 2 is empty");
  expect_error(run_call([&](Call& c) { c.input = &no_blocks; }), Error::InvalidArgument,
               "input dim 1 is empty");
  TestTensor w_ints(ScalarType::Int, {2, 3, 3, 16});
  expect_error(run_call([&](Call& c) { c.weight = &w_ints; }), Error::InvalidType,
               "conv2d_depthwise_blocked.out: weight_packed");
  TestTensor w_blocks(ScalarType::Float, {3, 3, 3, 16}), w_lanes(ScalarType::Float, {2, 3, 3, 8});
  TestTensor w_5d(ScalarType::Float, {2, 1, 3, 3, 16}), w_3d(ScalarType::Float, {2, 9, 16});
  TestTensor w_empty(ScalarType::Float, {2, 0, 3, 16});
  for (TestTensor* bad : {&w_blocks, &w_lanes, &w_5d, &w_3d, &w_empty}) {
    expect_error(run_call([&](Call& c) { c.weight = bad; }), Error::InvalidArgument,
                 "weight_packed must be [2, KH, KW, 16]");
  }
  TestTensor bias16(ScalarType::Float, {16}), bias_2d(ScalarType::Float, {2, 16});
  for (TestTensor* bad : {&bias16, &bias_2d}) {
    expect_error(run_call([&](Call& c) { c.bias = bad; }), Error::InvalidArgument,
                 "bias must be [32]");
  }
  TestTensor bias_ints(ScalarType::Int, {32});
  expect_error(run_call([&](Call& c) { c.bias = &bias_ints; }), Error::InvalidType,
               "conv2d_depthwise_blocked.out: bias");
  TestTensor out_ints(ScalarType::Int, {1, 2, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.output = &out_ints; }), Error::InvalidType,
               "conv2d_depthwise_blocked.out: out");
  expect_error(run_call([](Call& c) { c.output = &c.x; }), Error::InvalidArgument,
               "input must not overlap out");
}

TEST(Conv2dDepthwiseBlocked, WeightOrBiasOverlappingOutIsAnError) {
  TestTensor x(ScalarType::Float, {1, 1, 4, 4, 16});
  TestTensor storage(ScalarType::Float, {1024});
  float* base = storage.get()->mutable_data_as<float>();
  FloatView w(base, {1, 3, 3, 16}), bias(base + 300, {16}), out(base + 100, {1, 1, 4, 4, 16});
  expect_error(Args().t(x).t(&w.tensor).none().ints({1}).ints({1}).d(-kInf).d(kInf)
                   .t(&out.tensor).run(native::conv2d_depthwise_blocked_out),
               Error::InvalidArgument, "weight_packed must not overlap out");
  FloatView w_apart(base + 600, {1, 3, 3, 16});
  expect_error(Args().t(x).t(&w_apart.tensor).t(&bias.tensor).ints({1}).ints({1}).d(-kInf)
                   .d(kInf).t(&out.tensor).run(native::conv2d_depthwise_blocked_out),
               Error::InvalidArgument, "bias must not overlap out");
}

TEST(Conv2dDepthwiseBlocked, GeometryAndBoundErrors) {
  struct Case {
    std::vector<int64_t> stride, padding;
    const char* words;
  };
  for (const Case& bad : {Case{{0, 1}, {1}, "stride must be >= 1"},
                          Case{{1, -2}, {1}, "stride must be >= 1"},
                          Case{{1, 1, 1}, {1}, "stride must have 1 or 2 values"},
                          Case{{}, {1}, "stride must have 1 or 2 values"},
                          Case{{1}, {-1}, "padding must be >= 0"},
                          Case{{1}, {0, -1}, "padding must be >= 0"},
                          Case{{1}, {}, "padding must have 1 or 2 values"},
                          Case{{1}, {1, 1, 1}, "padding must have 1 or 2 values"}}) {
    expect_error(run_call([&](Call& c) {
                   c.stride = bad.stride;
                   c.padding = bad.padding;
                 }),
                 Error::InvalidArgument, bad.words);
  }
  TestTensor tiny(ScalarType::Float, {1, 2, 1, 4, 16});
  expect_error(run_call([&](Call& c) {
                 c.input = &tiny;
                 c.padding = {0};
               }),
               Error::InvalidArgument, "is smaller than the 3 x 3 filter");
  const double nan = std::nan("");
  expect_error(run_call([](Call& c) { c.lo = 6.5; }), Error::InvalidArgument,
               "need output_min <= output_max");
  expect_error(run_call([&](Call& c) { c.lo = nan; }), Error::InvalidArgument,
               "need output_min <= output_max");
  expect_error(run_call([&](Call& c) { c.hi = nan; }), Error::InvalidArgument,
               "need output_min <= output_max");
  EXPECT_EQ(run_call([](Call& c) {
              c.lo = -kInf;
              c.hi = kInf;
            }),
            Error::Ok);
  EXPECT_EQ(run_call([](Call& c) { c.lo = c.hi = 1.0; }), Error::Ok);  // min == max
}

TEST(Conv2dDepthwiseBlocked, ArgumentCountAndKinds) {
  TestTensor x(ScalarType::Float, {1, 1, 4, 4, 16}), w(ScalarType::Float, {1, 3, 3, 16});
  TestTensor out(ScalarType::Float, {1, 1, 4, 4, 16});
  EXPECT_NE(Args().t(x).t(w).none().ints({1}).ints({1}).d(0.0).d(6.0)
                .run(native::conv2d_depthwise_blocked_out),
            Error::Ok);  // out missing
  EXPECT_NE(Args().t(x).t(w).none().i(1).ints({1}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_depthwise_blocked_out),
            Error::Ok);  // stride not a list
  EXPECT_NE(Args().t(x).t(w).i(3).ints({1}).ints({1}).d(0.0).d(6.0).t(out)
                .run(native::conv2d_depthwise_blocked_out),
            Error::Ok);  // bias neither a tensor nor None
}

}  // namespace
}  // namespace torchedge
