// Tests of the channel-blocked (NCHW16c) kernels: torchedge::to_blocked,
// from_blocked and conv2d_blocked (python/torchedge/passes/
// conv2d_blocked_op.py is the definition). The values check the layout
// mapping, the weight packing and the rounding / clamp order; every
// argument error is checked by name. The Python harness
// (tests/ops/op_table_nn.py) compares the kernels with eager on random data.
#include <cmath>
#include <cstdint>
#include <limits>
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

TEST(BlockedLayout, ToBlockedPlacesChannelsLastAndBack) {
  TestTensor x(ScalarType::Float, {1, 32, 1, 2});
  x.fill(arange(64));  // x[0, c, 0, w] = 2 c + w
  TestTensor blocked(ScalarType::Float, {1, 2, 1, 2, 16});
  ASSERT_EQ(Args().t(x).t(blocked).run(native::to_blocked_out), Error::Ok);
  EXPECT_EQ(blocked.shape(), (std::vector<int32_t>{1, 2, 1, 2, 16}));
  std::vector<float> want(64);
  for (int cb = 0; cb < 2; ++cb) {
    for (int w = 0; w < 2; ++w) {
      for (int c = 0; c < 16; ++c) want[(cb * 2 + w) * 16 + c] = 2.0f * (cb * 16 + c) + w;
    }
  }
  EXPECT_EQ(blocked.values<float>(), want);
  TestTensor back(ScalarType::Float, {1, 32, 1, 2});
  ASSERT_EQ(Args().t(blocked).t(back).run(native::from_blocked_out), Error::Ok);
  EXPECT_EQ(back.values<float>(), arange(64));
}

TEST(BlockedLayout, ChannelsLastInput) {
  TestTensor x(ScalarType::Float, {1, 16, 2, 1}, {0, 2, 3, 1});
  x.fill(arange(32));  // logical order, whatever the dim order
  TestTensor blocked(ScalarType::Float, {1, 1, 2, 1, 16});
  ASSERT_EQ(Args().t(x).t(blocked).run(native::to_blocked_out), Error::Ok);
  std::vector<float> want(32);
  for (int h = 0; h < 2; ++h) {
    for (int c = 0; c < 16; ++c) want[h * 16 + c] = static_cast<float>(c * 2 + h);
  }
  EXPECT_EQ(blocked.values<float>(), want);
}

TEST(BlockedLayout, Errors) {
  TestTensor odd(ScalarType::Float, {1, 24, 2, 2});
  TestTensor out5(ScalarType::Float, {1, 2, 2, 2, 16});
  expect_error(Args().t(odd).t(out5).run(native::to_blocked_out), Error::InvalidArgument,
               "C a multiple of 16");
  TestTensor ints(ScalarType::Int, {1, 16, 2, 2});
  expect_error(Args().t(ints).t(out5).run(native::to_blocked_out), Error::InvalidType,
               "to_blocked.out: input");
  TestTensor nchw(ScalarType::Float, {1, 16, 2, 2});
  TestTensor last8(ScalarType::Float, {1, 2, 2, 2, 8});
  TestTensor out4(ScalarType::Float, {1, 32, 2, 2});
  expect_error(Args().t(last8).t(out4).run(native::from_blocked_out), Error::InvalidArgument,
               "input must be blocked");
  expect_error(Args().t(nchw).t(out4).run(native::from_blocked_out), Error::InvalidArgument,
               "input must be blocked");
}

TEST(GroupNormBlocked, PerChannelGroupsBlockedWithAndWithoutGelu) {
  // [1, 16, 4]: channel c holds c + {0, 1, 2, 3}, so each channel's mean is
  // c + 1.5 and its normalized values the same four for every channel.
  TestTensor x(ScalarType::Float, {1, 16, 4});
  std::vector<float> values(64);
  for (int c = 0; c < 16; ++c) {
    for (int s = 0; s < 4; ++s) values[c * 4 + s] = static_cast<float>(c + s);
  }
  x.fill(values);
  const double var = 1.25, eps = 1e-5;
  for (bool gelu : {false, true}) {
    TestTensor out(ScalarType::Float, {1, 1, 1, 4, 16});
    ASSERT_EQ(Args().t(x).none().none().i(16).d(eps).b(gelu).t(out).run(
                  native::group_norm_blocked_out),
              Error::Ok);
    EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 1, 1, 4, 16}));
    const std::vector<float> got = out.values<float>();
    for (int s = 0; s < 4; ++s) {
      const double v = (s - 1.5) / std::sqrt(var + eps);
      const double want = gelu ? v * 0.5 * (1.0 + std::erf(v / std::sqrt(2.0))) : v;
      for (int c = 0; c < 16; ++c) EXPECT_NEAR(got[s * 16 + c], want, 1e-6) << s << " " << c;
    }
  }
}

TEST(GroupNormBlocked, Errors) {
  TestTensor out(ScalarType::Float, {1, 2, 1, 3, 16});
  TestTensor odd(ScalarType::Float, {1, 24, 3});
  expect_error(Args().t(odd).none().none().i(24).d(1e-5).b(false).t(out).run(
                   native::group_norm_blocked_out),
               Error::InvalidArgument, "C a multiple of 16");
  TestTensor x(ScalarType::Float, {1, 32, 3});
  expect_error(Args().t(x).none().none().i(5).d(1e-5).b(false).t(out).run(
                   native::group_norm_blocked_out),
               Error::InvalidArgument, "divisible by the number of groups");
  TestTensor ints(ScalarType::Int, {1, 32, 3});
  expect_error(Args().t(ints).none().none().i(32).d(1e-5).b(false).t(out).run(
                   native::group_norm_blocked_out),
               Error::InvalidType, "group_norm_blocked.out: input");
  TestTensor short_weight(ScalarType::Float, {16});
  expect_error(Args().t(x).t(short_weight).none().i(32).d(1e-5).b(false).t(out).run(
                   native::group_norm_blocked_out),
               Error::InvalidArgument, "weight");
  TestTensor strided(ScalarType::Float, {1, 32, 3}, {0, 2, 1});
  expect_error(Args().t(strided).none().none().i(32).d(1e-5).b(false).t(out).run(
                   native::group_norm_blocked_out),
               Error::InvalidArgument, "contiguous");
}

// One image [1, 1, 2, 2, 16] (cin 16) and 1x1 filters for cout 16 that
// copy input channel c to output channel c, scaled by `scale`.
struct IdentityConv {
  TestTensor x{ScalarType::Float, {1, 1, 2, 2, 16}};
  TestTensor w{ScalarType::Float, {1, 1, 1, 1, 1024}};
  TestTensor out{ScalarType::Float, {1, 1, 2, 2, 16}};

  explicit IdentityConv(float scale) {
    x.fill(arange(64, 1.0f, -8.0f));
    std::vector<float> packed(1024, 0.0f);
    for (int c = 0; c < 16; ++c) packed[c * 64 + c] = scale;  // (ci % 16) * 64 + co % 64
    w.fill(packed);
  }
};

TEST(Conv2dBlocked, IdentityFiltersBiasResidualClamp) {
  IdentityConv conv(2.0f);
  TestTensor bias(ScalarType::Float, {16});
  bias.fill(arange(16, 0.5f));
  TestTensor residual(ScalarType::Float, {1, 1, 2, 2, 16});
  residual.fill(std::vector<float>(64, 1.0f));
  ASSERT_EQ(Args().t(conv.x).t(conv.w).t(bias).t(residual).i(16).ints({1, 1}).ints({0, 0})
                .d(0.0).d(20.0).t(conv.out).run(native::conv2d_blocked_out),
            Error::Ok);
  std::vector<float> want(64);
  for (int i = 0; i < 64; ++i) {
    const float v = 2.0f * (i - 8.0f) + 0.5f * (i % 16) + 1.0f;
    want[i] = std::fmin(20.0f, std::fmax(0.0f, v));
  }
  EXPECT_EQ(conv.out.values<float>(), want);
}

TEST(Conv2dBlocked, NanStaysNan) {
  IdentityConv conv(1.0f);
  conv.x.at<float>(53) = kNan;  // pixel 3, channel 5: 0 * NaN reaches all 16 outputs
  ASSERT_EQ(Args().t(conv.x).t(conv.w).none().none().i(16).ints({1}).ints({0}).d(0.0).d(6.0)
                .t(conv.out).run(native::conv2d_blocked_out),
            Error::Ok);
  for (size_t i = 48; i < 64; ++i) EXPECT_TRUE(std::isnan(conv.out.at<float>(i))) << i;
  EXPECT_EQ(conv.out.at<float>(4), 0.0f);   // -4 clamped
  EXPECT_EQ(conv.out.at<float>(20), 6.0f);  // 12 clamped
}

TEST(Conv2dBlocked, StridePaddingAndPartialGroup) {
  // cout 80 (two groups, the second a quarter full); every filter reads
  // input channel 0 only, all nine taps weighing co + 1. Stride 2 and
  // padding 1 over a 3x3 map holding 1..9 on channel 0: output (oh, ow) of
  // channel co is (co + 1) times the sum of its four in-bounds taps.
  TestTensor x(ScalarType::Float, {1, 1, 3, 3, 16});
  std::vector<float> image(9 * 16, 0.0f);
  for (int p = 0; p < 9; ++p) image[p * 16] = static_cast<float>(p + 1);
  x.fill(image);
  TestTensor w(ScalarType::Float, {2, 1, 3, 3, 1024});
  std::vector<float> packed(2 * 9 * 1024, 0.0f);
  for (int co = 0; co < 80; ++co) {
    for (int tap = 0; tap < 9; ++tap) packed[((co / 64) * 9 + tap) * 1024 + co % 64] = co + 1.0f;
  }
  w.fill(packed);
  TestTensor out(ScalarType::Float, {1, 5, 2, 2, 16});
  ASSERT_EQ(Args().t(x).t(w).none().none().i(80).ints({2, 2}).ints({1, 1}).d(-kInf).d(kInf)
                .t(out).run(native::conv2d_blocked_out),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 5, 2, 2, 16}));
  const float sums[4] = {1 + 2 + 4 + 5, 2 + 3 + 5 + 6, 4 + 5 + 7 + 8, 5 + 6 + 8 + 9};
  std::vector<float> want(5 * 4 * 16);
  for (size_t i = 0; i < want.size(); ++i) {
    const size_t co = (i / 64) * 16 + i % 16, pixel = (i / 16) % 4;
    want[i] = (co + 1.0f) * sums[pixel];
  }
  EXPECT_EQ(out.values<float>(), want);
}

// A first layer's plain NCHW input (Cin 3 < 16): [n, ci, h, w] is read as it
// is, filter (co, ci, kh, kw) at [co / 64, 0, kh, kw, ci * 64 + co % 64].
// Small integers keep every sum exact; the packed lanes past Cin hold NaN,
// which must never be read.
void run_plain_input(const std::vector<uint8_t>& dim_order) {
  const int batch = 2, cin = 3, in_h = 5, in_w = 4, cout = 80, k = 3, stride = 2, pad = 1;
  const int out_h = 3, out_w = 2;
  TestTensor x(ScalarType::Float, {batch, cin, in_h, in_w}, dim_order);
  std::vector<float> image(batch * cin * in_h * in_w);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>(i % 7) - 3.0f;
  x.fill(image);  // logical NCHW order
  auto filter = [](int co, int ci, int kh, int kw) {
    return static_cast<float>((co + 2 * ci + 3 * kh + kw) % 5 - 2);
  };
  TestTensor w(ScalarType::Float, {2, 1, k, k, 1024});
  std::vector<float> packed(2 * k * k * 1024, kNan);
  for (int co = 0; co < 128; ++co) {
    for (int ci = 0; ci < cin; ++ci) {
      for (int tap = 0; tap < k * k; ++tap) {
        packed[((co / 64) * k * k + tap) * 1024 + ci * 64 + co % 64] =
            co < cout ? filter(co, ci, tap / k, tap % k) : 0.0f;
      }
    }
  }
  w.fill(packed);
  TestTensor bias(ScalarType::Float, {cout});
  bias.fill(arange(cout, 1.0f, -40.0f));
  TestTensor out(ScalarType::Float, {batch, cout / 16, out_h, out_w, 16});
  ASSERT_EQ(Args().t(x).t(w).t(bias).none().i(cout).ints({stride}).ints({pad}).d(-10.0).d(kInf)
                .t(out).run(native::conv2d_blocked_out),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{batch, cout / 16, out_h, out_w, 16}));
  std::vector<float> want;
  for (int n = 0; n < batch; ++n) {
    for (int co = 0; co < cout; ++co) {
      for (int oh = 0; oh < out_h; ++oh) {
        for (int ow = 0; ow < out_w; ++ow) {
          float sum = 0.0f;
          for (int ci = 0; ci < cin; ++ci) {
            for (int kh = 0; kh < k; ++kh) {
              for (int kw = 0; kw < k; ++kw) {
                const int ih = oh * stride + kh - pad, iw = ow * stride + kw - pad;
                if (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w) continue;
                sum += image[((n * cin + ci) * in_h + ih) * in_w + iw] * filter(co, ci, kh, kw);
              }
            }
          }
          want.push_back(std::fmax(-10.0f, sum + (co - 40.0f)));
        }
      }
    }
  }
  // want is [n, co, oh, ow]; out is [n, co / 16, oh, ow, co % 16].
  const std::vector<float> got = out.values<float>();
  for (int n = 0; n < batch; ++n) {
    for (int co = 0; co < cout; ++co) {
      for (int p = 0; p < out_h * out_w; ++p) {
        const size_t at = ((n * (cout / 16) + co / 16) * out_h * out_w + p) * 16 + co % 16;
        EXPECT_EQ(got[at], want[(n * cout + co) * out_h * out_w + p])
            << "n " << n << " co " << co << " pixel " << p;
      }
    }
  }
}

TEST(Conv2dBlocked, PlainInputOfFewChannels) { run_plain_input({0, 1, 2, 3}); }

TEST(Conv2dBlocked, PlainChannelsLastInput) { run_plain_input({0, 2, 3, 1}); }

TEST(Conv2dBlocked, PlainInputErrors) {
  TestTensor w(ScalarType::Float, {1, 1, 3, 3, 1024});
  TestTensor out(ScalarType::Float, {1, 1, 4, 4, 16});
  auto run = [&](TestTensor& x, TestTensor& weight) {
    return Args().t(x).t(weight).none().none().i(16).ints({1}).ints({1}).d(0.0).d(6.0).t(out)
        .run(native::conv2d_blocked_out);
  };
  TestTensor rgb(ScalarType::Float, {1, 3, 4, 4});
  EXPECT_EQ(run(rgb, w), Error::Ok);
  TestTensor one(ScalarType::Float, {1, 1, 4, 4}), fifteen(ScalarType::Float, {1, 15, 4, 4});
  EXPECT_EQ(run(one, w), Error::Ok);
  EXPECT_EQ(run(fifteen, w), Error::Ok);
  TestTensor sixteen(ScalarType::Float, {1, 16, 4, 4}), none(ScalarType::Float, {1, 0, 4, 4});
  for (TestTensor* bad : {&sixteen, &none}) {
    expect_error(run(*bad, w), Error::InvalidArgument,
                 "input must be blocked [N, C/16, H, W, 16] or plain [N, C, H, W] with 0 < C < 16");
  }
  TestTensor ints(ScalarType::Int, {1, 3, 4, 4});
  expect_error(run(ints, w), Error::InvalidType, "conv2d_blocked.out: input");
  TestTensor w_two_blocks(ScalarType::Float, {1, 2, 3, 3, 1024});
  expect_error(run(rgb, w_two_blocks), Error::InvalidArgument,
               "weight_packed must be a contiguous [1, 1, KH, KW, 1024]");
  TestTensor tiny(ScalarType::Float, {1, 3, 1, 4});
  TestTensor w5(ScalarType::Float, {1, 1, 5, 5, 1024});
  expect_error(run(tiny, w5), Error::InvalidArgument, "is smaller than the 5 x 5 filter");
}

// A valid call (3x3, padding 1, cout 16 on a 4x4 map); each error case
// replaces one argument through `edit`.
struct Call {
  TestTensor x{ScalarType::Float, {1, 1, 4, 4, 16}};
  TestTensor w{ScalarType::Float, {1, 1, 3, 3, 1024}};
  TestTensor out{ScalarType::Float, {1, 1, 4, 4, 16}};
  TestTensor* input = &x;
  TestTensor* weight = &w;
  TestTensor* bias = nullptr;
  TestTensor* residual = nullptr;
  int64_t cout = 16;
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
  if (c.residual == nullptr) {
    args.none();
  } else {
    args.t(*c.residual);
  }
  return args.i(c.cout).ints(c.stride).ints(c.padding).d(c.lo).d(c.hi).t(*c.output)
      .run(native::conv2d_blocked_out);
}

TEST(Conv2dBlocked, TensorErrors) {
  EXPECT_EQ(run_call([](Call&) {}), Error::Ok);
  TestTensor nchw(ScalarType::Float, {1, 16, 4, 4});
  expect_error(run_call([&](Call& c) { c.input = &nchw; }), Error::InvalidArgument,
               "input must be blocked");
  TestTensor ints(ScalarType::Int, {1, 1, 4, 4, 16});
  expect_error(run_call([&](Call& c) { c.input = &ints; }), Error::InvalidType,
               "conv2d_blocked.out: input");
  for (int64_t bad : {24, 0, -16}) {
    expect_error(run_call([&](Call& c) { c.cout = bad; }), Error::InvalidArgument,
                 "out_channels must be a positive multiple of 16");
  }
  expect_error(run_call([](Call& c) { c.cout = 80; }),  // needs two packed groups
               Error::InvalidArgument, "weight_packed must be a contiguous [2, 1, KH, KW, 1024]");
  TestTensor w_cin32(ScalarType::Float, {1, 2, 3, 3, 1024});
  TestTensor w_lanes(ScalarType::Float, {1, 1, 3, 3, 256});
  TestTensor w_4d(ScalarType::Float, {1, 1, 3, 1024});
  for (TestTensor* bad : {&w_cin32, &w_lanes, &w_4d}) {
    expect_error(run_call([&](Call& c) { c.weight = bad; }), Error::InvalidArgument,
                 "weight_packed must be");
  }
  TestTensor bias32(ScalarType::Float, {32});
  expect_error(run_call([&](Call& c) { c.bias = &bias32; }), Error::InvalidArgument,
               "bias must be [16]");
  TestTensor small(ScalarType::Float, {1, 1, 2, 2, 16});
  expect_error(run_call([&](Call& c) { c.residual = &small; }), Error::InvalidArgument,
               "residual must be a contiguous [1, 1, 4, 4, 16]");
  expect_error(run_call([](Call& c) { c.output = &c.x; }), Error::InvalidArgument,
               "input must not overlap out");
}

// out may be the residual itself (the memory planner writes a residual
// block's output over its residual): the same values as a separate residual
// tensor holding them. Batch 2 and two output blocks; no clamp, so the
// separate run must also be exactly the run without residual plus it.
TEST(Conv2dBlocked, ResidualMayBeOutItself) {
  TestTensor x(ScalarType::Float, {2, 1, 4, 4, 16}), w(ScalarType::Float, {1, 1, 3, 3, 1024});
  TestTensor bias(ScalarType::Float, {32});
  // Small multiples of powers of two, repeating with periods prime to the
  // layout's: values = (i * mul % period - period / 2) * scale.
  auto values = [](size_t n, size_t mul, int period, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
      v[i] = static_cast<float>(static_cast<int>(i * mul % period) - period / 2) * scale;
    }
    return v;
  };
  const std::vector<float> xs = values(2 * 4 * 4 * 16, 37, 17, 0.125f);
  const std::vector<float> ws = values(9 * 1024, 13, 11, 0.0625f);
  const std::vector<float> rs = values(2 * 2 * 4 * 4 * 16, 29, 13, 0.5f);
  x.fill(xs);
  w.fill(ws);
  bias.fill(arange(32, 0.25f, -4.0f));
  auto run = [&](TestTensor* residual, TestTensor& out) {
    return run_call([&](Call& c) {
      c.input = &x;
      c.weight = &w;
      c.bias = &bias;
      c.residual = residual;
      c.cout = 32;
      c.lo = -kInf;
      c.hi = kInf;
      c.output = &out;
    });
  };
  TestTensor plain_out(ScalarType::Float, {2, 2, 4, 4, 16});
  ASSERT_EQ(run(nullptr, plain_out), Error::Ok);
  TestTensor residual(ScalarType::Float, {2, 2, 4, 4, 16});
  TestTensor apart(ScalarType::Float, {2, 2, 4, 4, 16});
  residual.fill(rs);
  apart.fill(std::vector<float>(rs.size(), kNan));  // what out held before does not matter
  ASSERT_EQ(run(&residual, apart), Error::Ok);
  TestTensor in_place(ScalarType::Float, {2, 2, 4, 4, 16});
  in_place.fill(rs);
  ASSERT_EQ(run(&in_place, in_place), Error::Ok);

  const std::vector<float> none = plain_out.values<float>(), want = apart.values<float>();
  EXPECT_EQ(in_place.values<float>(), want);
  EXPECT_EQ(residual.values<float>(), rs);  // a separate residual is left alone
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(want[i], none[i] + rs[i]) << "at " << i;
  }
}

// Any overlap of residual and out other than out itself is still an error:
// residual starting inside out, out starting inside the residual. Right
// next to each other is fine.
TEST(Conv2dBlocked, ResidualPartlyOverlappingOutIsAnError) {
  TestTensor x(ScalarType::Float, {1, 1, 4, 4, 16}), w(ScalarType::Float, {1, 1, 3, 3, 1024});
  TestTensor storage(ScalarType::Float, {1024});
  float* base = storage.get()->mutable_data_as<float>();
  auto run = [&](FloatView& residual, FloatView& out) {
    return Args().t(x).t(w).none().t(&residual.tensor).i(16).ints({1, 1}).ints({1, 1}).d(0.0)
        .d(6.0).t(&out.tensor).run(native::conv2d_blocked_out);
  };
  const std::vector<int32_t> sizes{1, 1, 4, 4, 16};  // 256 floats
  struct Offsets {
    int residual, out;
  };
  for (const Offsets& at : {Offsets{4, 0}, Offsets{0, 4}, Offsets{255, 0}, Offsets{0, 255},
                            Offsets{100, 300}}) {
    SCOPED_TRACE(testing::Message() << "residual at " << at.residual << ", out at " << at.out);
    FloatView residual(base + at.residual, sizes), out(base + at.out, sizes);
    expect_error(run(residual, out), Error::InvalidArgument, "residual must not overlap out");
  }
  FloatView residual(base + 256, sizes), out(base, sizes);  // adjacent, apart
  EXPECT_EQ(run(residual, out), Error::Ok);
  FloatView same(base + 512, sizes);  // out itself through another tensor: the same data
  FloatView same_out(base + 512, sizes);
  EXPECT_EQ(run(same, same_out), Error::Ok);
}

TEST(Conv2dBlocked, GeometryAndBoundErrors) {
  struct Case {
    std::vector<int64_t> stride, padding;
    const char* words;
  };
  for (const Case& bad : {Case{{0, 1}, {1}, "stride must be >= 1"},
                          Case{{1, 1, 1}, {1}, "stride must have 1 or 2 values"},
                          Case{{1}, {-1}, "padding must be >= 0"},
                          Case{{1}, {}, "padding must have 1 or 2 values"}}) {
    expect_error(run_call([&](Call& c) {
                   c.stride = bad.stride;
                   c.padding = bad.padding;
                 }),
                 Error::InvalidArgument, bad.words);
  }
  TestTensor tiny(ScalarType::Float, {1, 1, 1, 4, 16});
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
}

}  // namespace
}  // namespace torchedge
