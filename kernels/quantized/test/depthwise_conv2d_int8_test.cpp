// torchedge::depthwise_conv2d_int8.out against a naive reference: exact
// int32 sums of (x - zx) * w with padding contributing 0, then the
// requantize formula of the contract (float(acc) * (in_scale * w_scale[c])
// + bias[c], round half to even of y * float(1.0 / out_scale), + zo,
// clamp), bit for bit, over kernel sizes 1..5, strides 1..3, padding 0..2,
// dilation 1..2, widths below and around 16, batches 1..2, zero points
// across int8, narrowed output ranges, with and without bias, on 1 and 2
// threads; and the op's output equal to the scalar path's (the suite
// reruns under TORCHEDGE_ISA=avx2 and scalar). The channels-last loops and
// (with 7-bit weights) the u8 per-plane loops, forced through
// Int8DepthwisePath::kChannels / kPlanesU8 whatever the size rules say,
// against the scalar path bit for bit (output and scratch guarded).
#include <limits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

struct DwCase {
  int32_t n, c, h, w, kh, kw;
  int64_t sh, sw, ph, pw, dh, dw;
  int32_t zx, zo, omin, omax;
  bool bias;
  // > 0: x within zx +- x_spread (and an output scale to match), so the
  // AVX2 epilogue's bound on |y / out_scale| fails and the float path runs.
  int32_t x_spread = 0;
};

std::ostream& operator<<(std::ostream& os, const DwCase& k) {
  return os << "N" << k.n << " C" << k.c << " " << k.h << "x" << k.w << " k" << k.kh << "x"
            << k.kw << " s" << k.sh << "," << k.sw << " p" << k.ph << "," << k.pw << " d" << k.dh
            << "," << k.dw << " zx" << k.zx << " zo" << k.zo << " [" << k.omin << "," << k.omax
            << "] bias " << k.bias;
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? -1 : span / s + 1;
}

std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(gen));
  return v;
}

struct Data {
  std::vector<int8_t> x, w;
  std::vector<float> ws, b;
  double in_scale, out_scale;
};

Data make_data(const DwCase& k, uint32_t seed) {
  Data d;
  d.x = random_int8(static_cast<size_t>(k.n) * k.c * k.h * k.w, seed);
  if (k.x_spread > 0) {
    for (int8_t& v : d.x) {
      v = static_cast<int8_t>(std::min(127, std::max(-128, k.zx + v % (k.x_spread + 1))));
    }
  }
  d.w = random_int8(static_cast<size_t>(k.c) * k.kh * k.kw, seed + 1);
  d.ws = random_floats(k.c, 0.002f, 0.01f, seed + 2);
  d.b = random_floats(k.c, -2.0f, 2.0f, seed + 3);
  d.in_scale = 0.02;
  // Typical |acc| ~ sqrt(taps) * 74 * 74: spread outputs over ~+-60 steps.
  const double taps = static_cast<double>(k.kh * k.kw);
  d.out_scale = d.in_scale * 0.006 * std::sqrt(taps) * 74.0 * 74.0 / 40.0;
  if (k.x_spread > 0) {
    d.out_scale *= k.x_spread / 74.0;
    for (float& b : d.b) b *= static_cast<float>(k.x_spread / 740.0);
  }
  return d;
}

// The naive reference of the contract.
std::vector<int8_t> reference(const DwCase& k, const Data& d, int64_t oh_n, int64_t ow_n) {
  std::vector<int8_t> out;
  const float inv = static_cast<float>(1.0 / d.out_scale);
  const float in_scale = static_cast<float>(d.in_scale);
  for (int32_t n = 0; n < k.n; ++n) {
    for (int32_t c = 0; c < k.c; ++c) {
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          int32_t acc = 0;
          for (int32_t i = 0; i < k.kh; ++i) {
            for (int32_t j = 0; j < k.kw; ++j) {
              const int64_t ih = oh * k.sh - k.ph + i * k.dh, iw = ow * k.sw - k.pw + j * k.dw;
              const size_t at = ((static_cast<size_t>(n) * k.c + c) * k.h + ih) * k.w + iw;
              const bool inside = ih >= 0 && ih < k.h && iw >= 0 && iw < k.w;
              const int32_t xv = inside ? d.x[at] : k.zx;  // padding acts as x == zx
              acc += (xv - k.zx) * d.w[(static_cast<size_t>(c) * k.kh + i) * k.kw + j];
            }
          }
          float y = static_cast<float>(acc) * (in_scale * d.ws[c]);
          if (k.bias) y += d.b[c];
          const float r = quantized::round_half_even(y * inv) + static_cast<float>(k.zo);
          out.push_back(quantized::to_quant<int8_t>(
              quantized::clamp_nan(r, static_cast<float>(k.omin), static_cast<float>(k.omax))));
        }
      }
    }
  }
  return out;
}

struct Tensors {
  TestTensor x, w, ws, b, out;
  Tensors(const DwCase& k, const Data& d, int64_t oh, int64_t ow)
      : x(ScalarType::Char, {k.n, k.c, k.h, k.w}), w(ScalarType::Char, {k.c, 1, k.kh, k.kw}),
        ws(ScalarType::Float, {k.c}), b(ScalarType::Float, {k.c}),
        out(ScalarType::Char, {k.n, k.c, static_cast<int32_t>(oh), static_cast<int32_t>(ow)}) {
    x.fill(d.x);
    w.fill(d.w);
    ws.fill(d.ws);
    b.fill(d.b);
  }
};

Args dw_args(const DwCase& k, const Data& d, Tensors& t, bool in_place = false) {
  Args a;
  a.t(t.x).d(d.in_scale).i(k.zx).t(t.w).t(t.ws);
  if (k.bias) {
    a.t(t.b);
  } else {
    a.none();
  }
  a.ints({k.sh, k.sw}).ints({k.ph, k.pw}).ints({k.dh, k.dw});
  a.d(d.out_scale).i(k.zo).i(k.omin).i(k.omax).t(in_place ? t.x : t.out);
  return a;
}

// The op's output; then the scalar path on the same problem, bit for bit.
void check_case(const DwCase& k, uint32_t seed, size_t* distinct_out = nullptr) {
  SCOPED_TRACE(testing::Message() << k);
  const int64_t oh = out_size(k.h, k.kh, k.sh, k.ph, k.dh);
  const int64_t ow = out_size(k.w, k.kw, k.sw, k.pw, k.dw);
  ASSERT_GT(oh, 0);
  ASSERT_GT(ow, 0);
  const Data d = make_data(k, seed);
  Tensors t(k, d, oh, ow);
  ASSERT_EQ(dw_args(k, d, t).run(native::depthwise_conv2d_int8_out), Error::Ok);
  const std::vector<int8_t> got = t.out.values<int8_t>();
  const std::vector<int8_t> want = reference(k, d, oh, ow);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(static_cast<int>(got[i]), static_cast<int>(want[i])) << "at " << i;
  }
  if (distinct_out != nullptr) {
    std::vector<bool> seen(256, false);
    for (int8_t v : got) seen[static_cast<uint8_t>(v)] = true;
    *distinct_out = static_cast<size_t>(std::count(seen.begin(), seen.end(), true));
  }
  // The scalar path on the same arguments (the op used the best ISA).
  TestTensor scalar_out(ScalarType::Char,
                        {k.n, k.c, static_cast<int32_t>(oh), static_cast<int32_t>(ow)});
  const int64_t stride[2] = {k.sh, k.sw}, padding[2] = {k.ph, k.pw}, dilation[2] = {k.dh, k.dw};
  quantized::Int8DepthwiseArgs a{t.x.get(), d.in_scale, k.zx, t.w.get(), t.ws.get(),
                                 k.bias ? t.b.get() : nullptr, {stride, 2}, {padding, 2},
                                 {dilation, 2}, d.out_scale, k.zo, k.omin, k.omax,
                                 scalar_out.get()};
  quantized::Int8DepthwiseProblem p;
  ASSERT_EQ(quantized::prepare_int8_depthwise(a, &p, "test"), Error::Ok);
  quantized::int8_depthwise_scalar(p, 0, p.planes());
  EXPECT_EQ(scalar_out.values<int8_t>(), got);
}

// MobileNetV2's depthwise layers (3x3, padding 1): channels, map, stride.
struct MobileNetV2Layer {
  int32_t c, hw;
  int64_t s;
};
constexpr MobileNetV2Layer kMobileNetV2Layers[] = {
    {32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {192, 28, 1},
    {192, 28, 2}, {384, 14, 1}, {576, 14, 1}, {576, 14, 2}, {960, 7, 1}};

// The loops `path` forces (kChannels or kPlanesU8; the per-plane or scalar
// path where they are not available) on `k`, 1 and 2 threads, against the
// scalar path; nothing written outside the output or the scratch.
void check_path(const DwCase& k, const Data& d, quantized::Int8DepthwisePath path) {
  SCOPED_TRACE(testing::Message() << (path == quantized::Int8DepthwisePath::kChannels
                                          ? "channels-last "
                                          : "u8 planes ")
                                  << k);
  const int64_t oh = out_size(k.h, k.kh, k.sh, k.ph, k.dh);
  const int64_t ow = out_size(k.w, k.kw, k.sw, k.pw, k.dw);
  ASSERT_GT(oh, 0);
  ASSERT_GT(ow, 0);
  Tensors t(k, d, oh, ow);
  const int64_t stride[2] = {k.sh, k.sw}, padding[2] = {k.ph, k.pw}, dilation[2] = {k.dh, k.dw};
  quantized::Int8DepthwiseArgs a{t.x.get(), d.in_scale, k.zx, t.w.get(), t.ws.get(),
                                 k.bias ? t.b.get() : nullptr, {stride, 2}, {padding, 2},
                                 {dilation, 2}, d.out_scale, k.zo, k.omin, k.omax, t.out.get()};
  quantized::Int8DepthwiseProblem p;
  ASSERT_EQ(quantized::prepare_int8_depthwise(a, &p, "test"), Error::Ok);
  quantized::int8_depthwise_scalar(p, 0, p.planes());
  const std::vector<int8_t> want = t.out.values<int8_t>();
  constexpr size_t kGuard = 64;
  constexpr int8_t kSentinel = 0x5a;
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    const size_t bytes = quantized::int8_depthwise_scratch_bytes(p, path);
    std::vector<int8_t> scratch(bytes + kGuard + 64, kSentinel);
    const size_t align = (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    std::vector<int8_t> out(want.size() + 2 * kGuard, kSentinel);
    quantized::Int8DepthwiseProblem q = p;
    q.out = out.data() + kGuard;
    quantized::run_int8_depthwise(q, scratch.data() + align, path);
    const std::vector<int8_t> got(out.begin() + kGuard, out.end() - kGuard);
    EXPECT_EQ(got, want) << threads << " threads";
    for (size_t i = 0; i < kGuard; ++i) {
      ASSERT_EQ(out[i], kSentinel) << "wrote before the output";
      ASSERT_EQ(out[out.size() - 1 - i], kSentinel) << "wrote past the output";
    }
    for (size_t i = align + bytes; i < scratch.size(); ++i) {
      ASSERT_EQ(scratch[i], kSentinel) << "wrote past the scratch";
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

void check_channels(const DwCase& k, const Data& d) {
  check_path(k, d, quantized::Int8DepthwisePath::kChannels);
}
void check_channels(const DwCase& k, uint32_t seed) { check_channels(k, make_data(k, seed)); }

// make_data with every weight in [-64, 63] (static_config(weight_bits=7)),
// which the u8 per-plane loops need.
Data make_data_7bit(const DwCase& k, uint32_t seed) {
  Data d = make_data(k, seed);
  for (int8_t& v : d.w) v = static_cast<int8_t>(v >> 1);
  return d;
}
void check_u8(const DwCase& k, const Data& d) {
  check_path(k, d, quantized::Int8DepthwisePath::kPlanesU8);
}

TEST(DepthwiseConv2dInt8, ChannelsLastSmallMapsMatchScalar) {
  // Channel counts off the 32-channel band (1, 5, 24, 40), maps 1x1 to
  // 14x14, 3x3 and 5x5, strides 1 and 2, padding 0..2, batch 2; zero
  // points, scales, clamps and bias drawn per case.
  std::mt19937 gen(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  const int32_t maps[][2] = {{1, 1}, {3, 5}, {7, 7}, {14, 14}};
  int checked = 0;
  for (int32_t c : {1, 5, 24, 40}) {
    for (const auto& hw : maps) {
      for (int32_t kernel : {3, 5}) {
        for (int64_t s : {1, 2}) {
          for (int64_t pad : {0, 1, 2}) {
            DwCase k{2, c, hw[0], hw[1], kernel, kernel, s, s, pad, pad, 1, 1, 0, 0, -128, 127,
                     true};
            if (out_size(k.h, k.kh, k.sh, k.ph, 1) <= 0 ||
                out_size(k.w, k.kw, k.sw, k.pw, 1) <= 0) {
              continue;
            }
            k.zx = pick(-128, 127);
            k.zo = pick(-128, 127);
            const int range = pick(0, 2);
            k.omin = range == 1 ? std::max(-128, k.zo) : (range == 2 ? pick(-128, 0) : -128);
            k.omax = range == 2 ? pick(k.omin, 127) : 127;
            k.bias = pick(0, 1) == 1;
            Data d = make_data(k, 500 + checked);
            d.in_scale *= pick(1, 8) / 4.0;  // scales 1/4x..2x around the spread
            d.out_scale *= pick(1, 8) / 4.0;
            check_channels(k, d);
            if (HasFatalFailure()) return;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 160);
}

TEST(DepthwiseConv2dInt8, ChannelsLastGeneralGeometryMatchesScalar) {
  // Any kernel, stride, padding and dilation; non-square maps up to 20 and
  // channels up to 70 (a partial band after full ones).
  std::mt19937 gen(4321);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  int checked = 0;
  for (int i = 0; checked < 150 && i < 2000; ++i) {
    DwCase k;
    k.n = pick(1, 3);
    k.c = pick(1, 70);
    k.h = pick(1, 20);
    k.w = pick(1, 20);
    k.kh = pick(1, 7);
    k.kw = pick(1, 7);
    k.sh = pick(1, 3);
    k.sw = pick(1, 3);
    k.ph = pick(0, 3);
    k.pw = pick(0, 3);
    k.dh = pick(1, 3);
    k.dw = pick(1, 3);
    k.zx = pick(-128, 127);
    k.zo = pick(-128, 127);
    k.omin = pick(0, 1) == 1 ? pick(-128, 0) : -128;
    k.omax = pick(0, 1) == 1 ? pick(std::max(k.omin, 0), 127) : 127;
    k.bias = pick(0, 1) == 1;
    if (out_size(k.h, k.kh, k.sh, k.ph, k.dh) <= 0 || out_size(k.w, k.kw, k.sw, k.pw, k.dw) <= 0) {
      continue;
    }
    check_channels(k, 900 + checked);
    if (HasFatalFailure()) return;
    ++checked;
  }
  EXPECT_EQ(checked, 150);
}

TEST(DepthwiseConv2dInt8, ChannelsLastRowWindowsMatchScalar) {
  // Maps wide enough that a unit holds only a window of the padded rows
  // (128 KiB: ~19 rows of a 100-wide map): padding rows at the top and
  // bottom windows, two bands reusing the windows, strides and dilation.
  check_channels({1, 40, 45, 100, 5, 5, 1, 1, 2, 2, 1, 1, 7, -5, -128, 127, true}, 31);
  check_channels({2, 33, 41, 97, 3, 3, 2, 2, 1, 1, 1, 1, -9, 3, -100, 100, false}, 32);
  check_channels({1, 20, 50, 120, 3, 5, 1, 2, 3, 1, 2, 1, 0, 0, -128, 127, true}, 33);
  check_channels({1, 32, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, -3, 9, 0, 127, true}, 34);
}

// Through `path` (data from `make`): the float epilogue (|x - zx| small:
// not bounded) with bias at stride 1, without bias and with a raised
// output minimum at stride 2; then a NaN bias in channel `nan_channel` of
// `n` (0 there, as eager).
void check_float_epilogue_and_nan(quantized::Int8DepthwisePath path,
                                  Data (*make)(const DwCase&, uint32_t), DwCase f,
                                  const DwCase& n, int32_t nan_channel, uint32_t seed) {
  for (int32_t spread : {1, 3}) {
    f.x_spread = spread;
    f.bias = true;
    f.omin = -128;
    f.sh = f.sw = 1;
    check_path(f, make(f, seed + spread), path);
    f.bias = false;
    f.omin = 6;
    f.sh = f.sw = 2;
    check_path(f, make(f, seed + 10 + spread), path);
  }
  Data d = make(n, 5);
  d.b[nan_channel] = std::nanf("");
  check_path(n, d, path);
}

TEST(DepthwiseConv2dInt8, ChannelsLastFloatEpilogueAndNan) {
  // The NaN in the second band.
  check_float_epilogue_and_nan(quantized::Int8DepthwisePath::kChannels, make_data,
                               {2, 40, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, -20, 6, -128, 127, true},
                               {1, 36, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 0, 10, -128, 127, true}, 33,
                               60);
}

TEST(DepthwiseConv2dInt8, ChannelsLastNonFiniteBiasInFullBands) {
  // Full 16-channel bands (AArch64 dot-product: their factors and the
  // integer epilogue's exactness test are vectors): a NaN bias (0 there),
  // an infinite bias with a scale whose products overflow (the float
  // epilogue: inf - inf is NaN, 0), and one whose products stay finite
  // (the integer epilogue: +inf clamps to the top of the range).
  const DwCase k{1, 32, 9, 11, 3, 3, 1, 2, 1, 1, 1, 1, -7, 4, -128, 127, true};
  Data d = make_data(k, 71);
  d.b[20] = std::nanf("");
  check_channels(k, d);
  d = make_data(k, 72);
  d.b[3] = -std::numeric_limits<float>::infinity();
  d.ws[3] = 3e38f;
  check_channels(k, d);
  d = make_data(k, 73);
  d.b[17] = std::numeric_limits<float>::infinity();
  check_channels(k, d);
}

TEST(DepthwiseConv2dInt8, MobileNetV2ShapesThroughEveryLoop) {
  // Every MobileNetV2 depthwise layer at its full channel count, forced
  // through the channels-last loops, and the op (kAuto) on the same data;
  // with 7-bit weights through the u8 loops where the map is at least 28
  // wide (kAuto's rule for them).
  uint32_t seed = 40;
  for (const MobileNetV2Layer& l : kMobileNetV2Layers) {
    const DwCase k{1, l.c, l.hw, l.hw, 3, 3, l.s, l.s, 1, 1, 1, 1, -3, 9, 0, 127, true};
    check_channels(k, seed);
    check_case(k, seed);
    if (l.hw / l.s >= 28) check_u8(k, make_data_7bit(k, seed + 100));
    ++seed;
  }
}

TEST(DepthwiseConv2dInt8, ChannelsLastChosenWhereTheyWin) {
  // kAuto's rule (int8_depthwise_channels_win) on MobileNetV2's layers.
  quantized::Int8DepthwiseProblem p;
  p.batch = 1;
  p.kernel_h = p.kernel_w = 3;
  auto wins = [&](int64_t c, int64_t out_hw, int64_t stride) {
    p.channels = c;
    p.out_height = p.out_width = out_hw;
    p.stride_h = p.stride_w = stride;
    return quantized::int8_depthwise_channels_win(p);
  };
  const quantized::QuantIsa isa = quantized::quant_isa();
  const bool simd = isa != quantized::QuantIsa::kScalar;
  const bool vnni = isa == quantized::QuantIsa::kAvx512Vnni;
  EXPECT_EQ(wins(960, 7, 1), simd);
  EXPECT_EQ(wins(576, 7, 2), simd);
  EXPECT_EQ(wins(192, 28, 1), simd);
  EXPECT_EQ(wins(96, 56, 2), simd);
  // AVX2: the per-plane path's two-row 3x3 stride 1 wins on larger maps.
  EXPECT_EQ(wins(32, 112, 1), vnni);
  EXPECT_EQ(wins(144, 56, 1), vnni);
  // A band computes 32 lanes: too few channels stay per plane.
  EXPECT_FALSE(wins(4, 7, 1));
  EXPECT_EQ(wins(16, 7, 1), vnni);
  EXPECT_FALSE(wins(16, 56, 1));
}

TEST(DepthwiseConv2dInt8, MobileNetV2Shapes) {
  // 3x3, padding 1, stride 1 and 2, at every map width of the network (a
  // few channels each), relu6-like narrowed range and plain.
  const int32_t widths[] = {112, 56, 28, 14, 7};
  uint32_t seed = 1;
  for (int32_t hw : widths) {
    for (int64_t s : {1, 2}) {
      const DwCase k{1, 5, hw, hw, 3, 3, s, s, 1, 1, 1, 1, -3, 9, -128, 127, true};
      size_t distinct = 0;
      check_case(k, seed++, &distinct);
      EXPECT_GT(distinct, 30u) << "outputs should spread over the int8 range";
      check_case({1, 3, hw, hw, 3, 3, s, s, 1, 1, 1, 1, -128, -128, -128, 60, false}, seed++);
    }
  }
}

TEST(DepthwiseConv2dInt8, ThreeByThreeStrideOneOddSizes) {
  // The AVX2 path does 3x3 stride 1 two output rows at a time: odd heights
  // leave a last single row, widths past 16 a partial block per row.
  for (int32_t h : {1, 2, 3, 9}) {
    for (int32_t w : {9, 16, 21, 33}) {
      check_case({1, 2, h, w, 3, 3, 1, 1, 1, 1, 1, 1, 5, -3, -128, 127, true}, 200 + h * w);
      check_case({1, 1, h + 2, w, 3, 3, 1, 1, 0, 1, 1, 1, -5, 3, -128, 127, false}, 300 + h * w);
    }
  }
}

TEST(DepthwiseConv2dInt8, GeneralShapesMatchReference) {
  std::mt19937 gen(1234);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  // Up to 97: maps at least kInt8DepthwiseVnniMinWidth wide take the VNNI
  // rows (32 pixels a step) after every stride.
  const int32_t widths[] = {1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 23, 31, 32, 33, 40, 47, 64, 75, 97};
  int checked = 0;
  for (int i = 0; checked < 400 && i < 4000; ++i) {
    DwCase k;
    k.n = pick(1, 2);
    k.c = pick(1, 4);
    k.h = pick(1, 12);
    k.w = widths[pick(0, static_cast<int>(sizeof(widths) / sizeof(widths[0])) - 1)];
    k.kh = pick(1, 5);
    k.kw = pick(1, 5);
    k.sh = pick(1, 3);
    k.sw = pick(1, 3);
    k.ph = pick(0, 2);
    k.pw = pick(0, 2);
    k.dh = pick(1, 2);
    k.dw = pick(1, 2);
    k.zx = pick(-128, 127);
    k.zo = pick(-128, 127);
    const int range = pick(0, 3);
    k.omin = range == 1 ? std::max(-128, k.zo) : (range == 2 ? pick(-128, 0) : -128);
    k.omax = range == 2 ? pick(k.omin, 127) : 127;
    k.bias = pick(0, 1) == 1;
    if (out_size(k.h, k.kh, k.sh, k.ph, k.dh) <= 0 || out_size(k.w, k.kw, k.sw, k.pw, k.dw) <= 0) {
      continue;
    }
    // Odd cases on 2 threads (each thread then owns its own scratch slice).
    ASSERT_EQ(set_num_threads(checked % 2 == 0 ? 1 : 2), Error::Ok);
    check_case(k, 100 + checked);
    if (HasFatalFailure()) break;
    ++checked;
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
  EXPECT_EQ(checked, 400);
}

TEST(DepthwiseConv2dInt8, LargeKernelAndExtremeZeroPoints) {
  // 7x7 and 11x1 (the generic pair loop), all-(-128)/127 zero points.
  check_case({1, 3, 20, 37, 7, 7, 1, 1, 3, 3, 1, 1, 127, -128, -128, 127, true}, 7);
  check_case({2, 2, 15, 19, 11, 1, 2, 1, 5, 0, 1, 1, -128, 127, -128, 127, false}, 8);
  check_case({1, 2, 9, 70, 1, 9, 1, 3, 0, 4, 1, 2, 0, 0, -5, 5, true}, 9);
}

TEST(DepthwiseConv2dInt8, SmallActivationsTakeTheFloatEpilogue) {
  // |x - zx| <= 3 with an output scale to match: the worst case 255 * sum|w|
  // is far outside the int8 range, so the AVX2 path requantizes in floats.
  for (int32_t spread : {1, 3}) {
    DwCase k{1, 4, 9, 37, 3, 3, 1, 1, 1, 1, 1, 1, -20, 6, -128, 127, true};
    k.x_spread = spread;
    size_t distinct = 0;
    check_case(k, 60 + spread, &distinct);
    EXPECT_GT(distinct, 8u);
    k.w = 5;  // narrow maps too
    k.bias = false;
    k.omin = 6;
    check_case(k, 70 + spread);
  }
}

TEST(DepthwiseConv2dInt8, TwoThreadsEqualOne) {
  const DwCase k{2, 24, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 4, -7, -128, 127, true};
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  check_case(k, 77);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
  check_case(k, 77);
}

TEST(DepthwiseConv2dInt8, NanBiasGivesZero) {
  // eager: quantize(NaN) -> clamp keeps NaN -> .to(int8) -> 0, on every ISA.
  const DwCase k{1, 2, 5, 21, 3, 3, 1, 1, 1, 1, 1, 1, 0, 10, -128, 127, true};
  const Data d0 = make_data(k, 5);
  Data d = d0;
  d.b[1] = std::nanf("");
  Tensors t(k, d, 5, 21);
  ASSERT_EQ(dw_args(k, d, t).run(native::depthwise_conv2d_int8_out), Error::Ok);
  const std::vector<int8_t> got = t.out.values<int8_t>();
  EXPECT_EQ(got, reference(k, d, 5, 21));
  for (size_t i = 105; i < 210; ++i) EXPECT_EQ(got[i], 0);
}

TEST(DepthwiseConv2dInt8, RejectsBadArguments) {
  const DwCase k{1, 4, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, -128, 127, true};
  const Data d = make_data(k, 3);
  auto run = [&](auto&& edit) {
    Tensors t(k, d, 8, 8);
    DwCase kk = k;
    Data dd = d;
    TestTensor* x = &t.x;
    TestTensor* w = &t.w;
    TestTensor* ws = &t.ws;
    TestTensor* b = &t.b;
    TestTensor* out = &t.out;
    std::vector<int64_t> stride = {1, 1}, padding = {1, 1}, dilation = {1, 1};
    edit(kk, dd, x, w, ws, b, out, stride, padding, dilation);
    Args a;
    a.t(*x).d(dd.in_scale).i(kk.zx).t(*w).t(*ws).t(*b).ints(stride).ints(padding).ints(dilation);
    return a.d(dd.out_scale).i(kk.zo).i(kk.omin).i(kk.omax).t(*out).run(
        native::depthwise_conv2d_int8_out);
  };
  using T = TestTensor*;
  using V = std::vector<int64_t>&;
  EXPECT_EQ(run([](DwCase&, Data&, T, T, T, T, T, V, V, V) {}), Error::Ok);
  TestTensor xf(ScalarType::Float, {1, 4, 8, 8}), x3(ScalarType::Char, {4, 8, 8});
  TestTensor wf(ScalarType::Float, {4, 1, 3, 3}), w5(ScalarType::Char, {5, 1, 3, 3});
  TestTensor w2(ScalarType::Char, {4, 2, 3, 3}), w3d(ScalarType::Char, {4, 3, 3});
  TestTensor ws5(ScalarType::Float, {5}), wsd(ScalarType::Double, {4}), b3(ScalarType::Float, {3});
  TestTensor outf(ScalarType::Float, {1, 4, 8, 8});
  const Error bad = Error::InvalidArgument;
  EXPECT_EQ(run([&](DwCase&, Data&, T& x, T, T, T, T, V, V, V) { x = &xf; }), bad);  // dtype
  EXPECT_EQ(run([&](DwCase&, Data&, T& x, T, T, T, T, V, V, V) { x = &x3; }), bad);  // rank
  EXPECT_EQ(run([&](DwCase&, Data&, T, T& w, T, T, T, V, V, V) { w = &wf; }), bad);
  // Not depthwise: 5 filters for 4 channels, or 2 input channels per filter.
  EXPECT_EQ(run([&](DwCase&, Data&, T, T& w, T, T, T, V, V, V) { w = &w5; }), bad);
  EXPECT_EQ(run([&](DwCase&, Data&, T, T& w, T, T, T, V, V, V) { w = &w2; }), bad);
  EXPECT_EQ(run([&](DwCase&, Data&, T, T& w, T, T, T, V, V, V) { w = &w3d; }), bad);
  EXPECT_EQ(run([&](DwCase&, Data&, T, T, T& s, T, T, V, V, V) { s = &ws5; }), bad);
  EXPECT_EQ(run([&](DwCase&, Data&, T, T, T& s, T, T, V, V, V) { s = &wsd; }), bad);
  EXPECT_EQ(run([&](DwCase&, Data&, T, T, T, T& b, T, V, V, V) { b = &b3; }), bad);
  EXPECT_NE(run([&](DwCase&, Data&, T, T, T, T, T& o, V, V, V) { o = &outf; }), Error::Ok);
  EXPECT_EQ(run([](DwCase& k, Data&, T, T, T, T, T, V, V, V) { k.omin = 10, k.omax = 9; }), bad);
  EXPECT_EQ(run([](DwCase& k, Data&, T, T, T, T, T, V, V, V) { k.omin = -129; }), bad);
  EXPECT_EQ(run([](DwCase& k, Data&, T, T, T, T, T, V, V, V) { k.omax = 128; }), bad);
  EXPECT_EQ(run([](DwCase& k, Data&, T, T, T, T, T, V, V, V) { k.zx = 128; }), bad);
  EXPECT_EQ(run([](DwCase& k, Data&, T, T, T, T, T, V, V, V) { k.zo = -129; }), bad);
  EXPECT_EQ(run([](DwCase&, Data& d, T, T, T, T, T, V, V, V) { d.in_scale = 0.0; }), bad);
  EXPECT_EQ(run([](DwCase&, Data& d, T, T, T, T, T, V, V, V) { d.out_scale = -1.0; }), bad);
  EXPECT_EQ(run([](DwCase&, Data& d, T, T, T, T, T, V, V, V) { d.out_scale = INFINITY; }), bad);
  EXPECT_EQ(run([](DwCase&, Data&, T, T, T, T, T, V s, V, V) { s = {0, 1}; }), bad);
  EXPECT_EQ(run([](DwCase&, Data&, T, T, T, T, T, V s, V, V) { s = {1}; }), bad);
  EXPECT_EQ(run([](DwCase&, Data&, T, T, T, T, T, V, V p, V) { p = {-1, 0}; }), bad);
  EXPECT_EQ(run([](DwCase&, Data&, T, T, T, T, T, V, V, V d) { d = {1, 0}; }), bad);
  // A 3x3 kernel with dilation 5 spans 11 > 8 + 2 padded columns.
  EXPECT_EQ(run([](DwCase&, Data&, T, T, T, T, T, V, V, V d) { d = {1, 5}; }), bad);
}

TEST(DepthwiseConv2dInt8, ScratchComesFromTheTempAllocator) {
  const DwCase k{1, 4, 8, 20, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, -128, 127, false};
  const Data d = make_data(k, 4);
  Tensors t(k, d, 8, 20);
  const Error e = dw_args(k, d, t).run(native::depthwise_conv2d_int8_out, /*with_temp=*/false);
  // The scalar path needs none; the AVX2 and NEON paths report the missing
  // scratch.
#if defined(TORCHEDGE_QUANTIZED_ARM)
  const bool simd = optimized::best_arm_isa() >= optimized::ArmIsa::kNeon;
#else
  const bool simd = quantized::quant_isa() != quantized::QuantIsa::kScalar;
#endif
  EXPECT_EQ(e, simd ? Error::MemoryAllocationFailed : Error::Ok);
  // So do the channels-last loops (a small map with many channels).
  const DwCase kc{1, 64, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, -128, 127, false};
  const Data dc = make_data(kc, 4);
  Tensors tc(kc, dc, 7, 7);
  const Error ec = dw_args(kc, dc, tc).run(native::depthwise_conv2d_int8_out, /*with_temp=*/false);
  EXPECT_EQ(ec, simd ? Error::MemoryAllocationFailed : Error::Ok);
}

}  // namespace
}  // namespace torchedge

namespace torchedge {
namespace {

TEST(DepthwiseConv2dInt8, U8PlanesMatchScalar) {
  // 3x3 filters with 7-bit weights: widths around the 32-pixel block (and
  // 1..5), strides 1 and 2 in either direction, padding 0..2, batch 2;
  // zero points, scales, clamps and bias drawn per case.
  std::mt19937 gen(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  int checked = 0;
  for (int32_t w : {1, 3, 5, 16, 31, 32, 33, 56, 63, 64, 65, 97, 112}) {
    for (int64_t sh : {1, 2}) {
      for (int64_t sw : {1, 2}) {
        for (int64_t pad : {0, 1, 2}) {
          DwCase k{2, pick(1, 3), pick(1, 9), w, 3, 3, sh, sw, pad, pad, 1, 1, 0, 0, -128, 127,
                   true};
          if (out_size(k.h, 3, sh, pad, 1) <= 0 || out_size(k.w, 3, sw, pad, 1) <= 0) continue;
          k.zx = pick(-128, 127);
          k.zo = pick(-128, 127);
          k.omin = pick(0, 1) == 1 ? pick(-128, 0) : -128;
          k.omax = pick(0, 1) == 1 ? pick(std::max(k.omin, 0), 127) : 127;
          k.bias = pick(0, 1) == 1;
          Data d = make_data_7bit(k, 700 + checked);
          d.out_scale *= pick(2, 8) / 8.0;  // the weights are half as large
          check_u8(k, d);
          if (HasFatalFailure()) return;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 120);
}

TEST(DepthwiseConv2dInt8, U8PlanesExtremesAndEpilogues) {
  // The largest vpmaddubsw pair sums: x = 127 (u8 255) against weights
  // -64 and 63, and x = -128 (u8 0); then the float epilogue (small
  // spread: not bounded) and a NaN bias.
  const DwCase k{1, 4, 6, 70, 3, 3, 1, 1, 1, 1, 1, 1, -128, 0, -128, 127, true};
  for (int8_t x : {int8_t{127}, int8_t{-128}}) {
    Data d = make_data_7bit(k, 11);
    std::fill(d.x.begin(), d.x.end(), x);
    for (size_t i = 0; i < d.w.size(); ++i) d.w[i] = (i / 9) % 2 == 0 ? -64 : 63;
    d.out_scale *= 40.0;  // outputs inside the range, not all clamped
    check_u8(k, d);
    DwCase s2 = k;
    s2.sh = s2.sw = 2;
    s2.zx = 127;
    check_u8(s2, d);
  }
  check_float_epilogue_and_nan(quantized::Int8DepthwisePath::kPlanesU8, make_data_7bit,
                               {2, 3, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1, -20, 6, -128, 127, true},
                               {1, 3, 5, 33, 3, 3, 1, 1, 1, 1, 1, 1, 0, 10, -128, 127, true}, 1,
                               80);
}

TEST(DepthwiseConv2dInt8, U8PlanesApplyOnlyWhereExact) {
  // int8_depthwise_u8_applies: AVX2 without VNNI, 3x3, dilation 1, stride_w
  // 1 or 2, every weight in [-64, 63].
  std::vector<int8_t> w(2 * 9, 63);
  quantized::Int8DepthwiseProblem p;
  p.batch = 1;
  p.channels = 2;
  p.height = p.width = 20;
  p.out_height = p.out_width = 20;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  p.weight = w.data();
  const bool avx2 = quantized::quant_isa() == quantized::QuantIsa::kAvx2;
  EXPECT_EQ(quantized::int8_depthwise_u8_applies(p), avx2);
  EXPECT_FALSE(quantized::int8_depthwise_u8_wins(p));  // 20 wide: channels-last
  p.out_width = 28;
  EXPECT_EQ(quantized::int8_depthwise_u8_wins(p), avx2);
  w[17] = -64;
  EXPECT_EQ(quantized::int8_depthwise_u8_applies(p), avx2);
  w[17] = 64;  // the last weight of the last channel: 8 bits
  EXPECT_FALSE(quantized::int8_depthwise_u8_applies(p));
  w[17] = -65;
  EXPECT_FALSE(quantized::int8_depthwise_u8_applies(p));
  w[17] = 0;
  p.stride_w = 3;
  EXPECT_FALSE(quantized::int8_depthwise_u8_applies(p));
  p.stride_w = 1;
  p.dilation_h = 2;
  EXPECT_FALSE(quantized::int8_depthwise_u8_applies(p));
  p.dilation_h = 1;
  p.kernel_h = p.kernel_w = 5;  // (the weight array is read only for 3x3)
  EXPECT_FALSE(quantized::int8_depthwise_u8_applies(p));
}

}  // namespace
}  // namespace torchedge

namespace torchedge {
namespace {

// The in-place contract (support/overlapping_input.h): out given the input's
// own bytes (equal sizes, as the memory planner aliases them) equals a
// separate out bit for bit, per-plane and channels-wide loops, 1 and 2 threads.
TEST(DepthwiseConv2dInt8, InPlaceEqualsSeparateOutput) {
  const DwCase cases[] = {
      {1, 64, 25, 5, 3, 3, 1, 1, 1, 1, 1, 1, 4, -7, -128, 127, true},   // DS-CNN
      {2, 24, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, -128, 3, 0, 127, false},
      {1, 7, 9, 11, 5, 5, 1, 1, 2, 2, 1, 1, 127, -1, -128, 127, true},
  };
  for (size_t threads : {size_t{1}, size_t{2}}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    uint32_t seed = 900;
    for (const DwCase& k : cases) {
      SCOPED_TRACE(testing::Message() << k);
      const Data d = make_data(k, seed++);
      Tensors separate(k, d, k.h, k.w), aliased(k, d, k.h, k.w);
      ASSERT_EQ(dw_args(k, d, separate).run(native::depthwise_conv2d_int8_out), Error::Ok);
      ASSERT_EQ(dw_args(k, d, aliased, true).run(native::depthwise_conv2d_int8_out), Error::Ok);
      ASSERT_EQ(separate.out.values<int8_t>(), aliased.x.values<int8_t>());
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

}  // namespace
}  // namespace torchedge
