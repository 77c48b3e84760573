// torchedge::conv2d_int8.out: the int32 sums are exact and the epilogue is
// requantize()'s float formula, so the output must equal a naive direct
// convolution + that formula bit for bit, on every ISA (the suite also runs
// with TORCHEDGE_ISA=avx2 and =scalar), thread count and geometry; and the
// AVX2 path must equal the scalar path (int8_conv_scalar) bit for bit.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/int8_conv_test_data.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

std::vector<int8_t> reference(const Geometry& g, const Quant& q, const Data& d) {
  const int32_t oh = g.oh(), ow = g.ow(), cin_g = g.cin / g.groups, cout_g = g.cout / g.groups;
  const float in_scale = static_cast<float>(q.in_scale);
  const float inv = static_cast<float>(1.0 / q.out_scale);
  std::vector<int8_t> out(static_cast<size_t>(g.n) * g.cout * oh * ow);
  size_t o = 0;
  for (int32_t n = 0; n < g.n; ++n) {
    for (int32_t m = 0; m < g.cout; ++m) {
      const int32_t gr = m / cout_g;
      for (int32_t y = 0; y < oh; ++y) {
        for (int32_t x = 0; x < ow; ++x) {
          int64_t acc = 0;
          for (int32_t c = 0; c < cin_g; ++c) {
            for (int32_t i = 0; i < g.kh; ++i) {
              for (int32_t j = 0; j < g.kw; ++j) {
                const int32_t ih = y * g.sh - g.ph + i * g.dh, iw = x * g.sw - g.pw + j * g.dw;
                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                const int32_t xv =
                    d.x[((static_cast<size_t>(n) * g.cin + gr * cin_g + c) * g.h + ih) * g.w + iw];
                const int32_t wv = d.w[((static_cast<size_t>(m) * cin_g + c) * g.kh + i) * g.kw + j];
                acc += static_cast<int64_t>(xv - q.in_zp) * wv;
              }
            }
          }
          float yv = static_cast<float>(static_cast<int32_t>(acc)) * (in_scale * d.scales[m]);
          if (q.bias) yv += d.bias[m];
          float r = std::nearbyint(yv * inv) + static_cast<float>(q.out_zp);
          if (std::isnan(r)) {
            out[o++] = 0;  // eager's .to(int8) of NaN
            continue;
          }
          r = std::min(std::max(r, static_cast<float>(q.out_min)), static_cast<float>(q.out_max));
          out[o++] = static_cast<int8_t>(r);
        }
      }
    }
  }
  return out;
}

// Runs the kernel with a 16 MiB temp arena; fills `out` (in_place: the
// kernel writes over its input, which is then copied to `out`).
Error run_kernel(const Geometry& g, const Quant& q, const Data& d, TestTensor& out,
                 const std::vector<int8_t>* panels_override = nullptr,
                 size_t arena_bytes = size_t{16} << 20, bool in_place = false) {
  TestTensor x(ScalarType::Char, {g.n, g.cin, g.h, g.w});
  x.fill(d.x);
  const std::vector<int8_t> panels = panels_override ? *panels_override : to_panels(g, d.w);
  const int32_t cout_g = g.cout / g.groups;
  TestTensor w(ScalarType::Char, {g.groups, (cout_g + 5) / 6, (g.k() + 3) / 4, 6, 4});
  w.fill(panels);
  TestTensor s(ScalarType::Float, {g.cout}), b(ScalarType::Float, {g.cout});
  s.fill(d.scales);
  b.fill(d.bias);
  Args args;
  args.t(x).d(q.in_scale).i(q.in_zp).t(w).t(s);
  if (q.bias) {
    args.t(b);
  } else {
    args.none();
  }
  args.ints({g.kh, g.kw}).ints({g.sh, g.sw}).ints({g.ph, g.pw}).ints({g.dh, g.dw}).i(g.groups);
  args.d(q.out_scale).i(q.out_zp).i(q.out_min).i(q.out_max);
  TestTensor sums(ScalarType::Int, {g.cout + q.extra_weight_sums});
  if (q.weight_bits != 8 || q.pass_weight_bits || q.pass_weight_sums) args.i(q.weight_bits);
  if (q.pass_weight_sums) {
    std::vector<int32_t> row_sums(static_cast<size_t>(g.cout + q.extra_weight_sums), 0);
    const size_t k = d.w.size() / static_cast<size_t>(g.cout);
    for (size_t i = 0; i < d.w.size(); ++i) row_sums[i / k] += d.w[i];
    sums.fill(row_sums);
    args.t(sums);
  }
  args.t(in_place ? x : out);
  std::vector<unsigned char> arena(arena_bytes);
  MemoryAllocator temp(arena.data(), arena.size());
  KernelContext ctx(&temp);
  const Error e = args.run_with(native::conv2d_int8_out, ctx);
  if (in_place) out.fill(x.values<int8_t>());
  return e;
}

// The scalar path on the same problem (what the AVX2 path must equal).
std::vector<int8_t> scalar_path(const Geometry& g, const Quant& q, const Data& d) {
  const std::vector<int8_t> panels = to_panels(g, d.w);
  std::vector<int8_t> out(static_cast<size_t>(g.n) * g.cout * g.oh() * g.ow());
  const quantized::Int8ConvProblem p = problem_of(g, q, d, panels, out.data());
  for (int32_t n = 0; n < g.n; ++n) {
    for (int32_t gr = 0; gr < g.groups; ++gr) {
      quantized::int8_conv_scalar(p, n, gr, 0, g.cout / g.groups);
    }
  }
  return out;
}

std::string describe(const Geometry& g, const Quant& q) {
  char buf[320];
  std::snprintf(buf, sizeof(buf),
                "N%d Cin%d %dx%d Cout%d k%dx%d s%dx%d p%dx%d d%dx%d g%d | zx %d zo %d [%d, %d] "
                "bias %d weight bits %d threads %zu isa %s",
                g.n, g.cin, g.h, g.w, g.cout, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw,
                g.groups, q.in_zp, q.out_zp, q.out_min, q.out_max, q.bias, q.weight_bits,
                num_threads(),
                quantized::quant_isa_name(quantized::quant_isa()));
  return buf;
}

void expect_equal_outputs(const std::vector<int8_t>& want, const std::vector<int8_t>& got,
                          const char* what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i] && bad++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " want " << int{want[i]} << " got "
                    << int{got[i]};
    }
  }
  ASSERT_EQ(bad, 0u) << what << ": " << bad << " of " << want.size() << " differ";
}

void check_case(const Geometry& g, const Quant& q, uint32_t seed, const Data* data = nullptr) {
  SCOPED_TRACE(describe(g, q));
  const Data d = data != nullptr ? *data : random_data(g, seed, q.weight_bits);
  TestTensor out(ScalarType::Char, {g.n, g.cout, g.oh(), g.ow()});
  ASSERT_EQ(run_kernel(g, q, d, out), Error::Ok);
  const std::vector<int8_t> got = out.values<int8_t>();
  expect_equal_outputs(reference(g, q, d), got, "vs naive reference");
  expect_equal_outputs(scalar_path(g, q, d), got, "vs scalar path");
}

// Geometries that reach each packer path: flat 1x1 (pixels a multiple of
// 16 and not), stride 1 with strips straddling rows and borders, stride 2
// wide enough for the 32-byte deinterleave, stride 3 (gather), several K
// blocks (K > 384), Cout past many panels and with 1-3 / 4-5 row tails.
TEST(Conv2dInt8, KnownGeometriesEqualReference) {
  const Geometry cases[] = {
      {1, 16, 8, 8, 24, 1, 1, 1, 1, 0, 0, 1, 1, 1},      // flat, 64 px
      {1, 7, 5, 9, 13, 1, 1, 1, 1, 0, 0, 1, 1, 1},       // flat, 45 px, odd K
      {1, 66, 7, 7, 38, 1, 1, 1, 1, 0, 0, 1, 1, 1},      // flat 7x7: last strip 1 px
      {1, 24, 14, 14, 20, 1, 1, 1, 1, 0, 0, 1, 1, 1},    // flat 14x14: last strip 4 px
      {1, 9, 23, 41, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1},     // straddles, borders
      {2, 8, 19, 70, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1},     // stride 2 deinterleave
      {1, 50, 12, 20, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1},    // K = 450: two K blocks
      {1, 130, 7, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1},     // K = 1170, 7x7 map
      {1, 6, 30, 33, 9, 5, 5, 3, 3, 2, 2, 1, 1, 1},      // stride 3 (gather)
      {1, 4, 20, 40, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2},      // dilation 2, groups 2
      {1, 12, 17, 35, 12, 3, 3, 1, 1, 1, 1, 1, 1, 12},   // depthwise-shaped
      {1, 3, 40, 40, 16, 7, 7, 2, 2, 3, 3, 1, 1, 1},     // stem-like
      {1, 32, 14, 14, 64, 1, 1, 2, 2, 0, 0, 1, 1, 1},    // 1x1 stride 2 (not flat)
      {1, 43, 9, 37, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1},     // odd K = 387 past one block
      // Winograd F(2x2, 3x3) (AVX2): a batch, no padding, and an odd output
      // height with rows wider than the padded copy's slack (its last tile
      // row reads one row past the planes).
      {2, 16, 12, 10, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 8, 12, 13, 8, 3, 3, 1, 1, 0, 0, 1, 1, 1},
      {1, 8, 11, 118, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      // Its 8-tile vectors across tile rows: 7 tiles a row (ResNet's 14x14
      // layers), and 5 with an odd last column and row (three runs in one
      // vector).
      {1, 20, 14, 14, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},
      {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},
  };
  uint32_t seed = 100;
  for (const Geometry& g : cases) check_case(g, Quant{}, seed += 7);
  // 7-bit weights (the AVX2 u8 path): the same geometries, the input's zero
  // point -128 (no row sums) and not.
  Quant seven;
  seven.weight_bits = 7;
  for (const Geometry& g : cases) {
    seven.in_zp = seven.in_zp == -128 ? 3 : -128;
    check_case(g, seven, seed += 7);
  }
  // The program's weight_sums (the fusion stores them): the same bytes.
  Quant with_sums;
  with_sums.pass_weight_sums = true;
  with_sums.in_zp = -37;
  for (const Geometry& g : cases) check_case(g, with_sums, seed += 7);
  // With 7-bit weights too (the AVX2 u8 path takes its row sums from them).
  with_sums.weight_bits = 7;
  with_sums.in_zp = 11;
  for (const Geometry& g : cases) check_case(g, with_sums, seed += 7);
}

TEST(Conv2dInt8, RandomGeometriesEqualReferenceOnOneAndTwoThreads) {
  std::mt19937 gen(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  for (int t = 0; t < 120; ++t) {
    Geometry g{};
    g.kh = pick(1, 7);
    g.kw = pick(1, 7);
    g.sh = pick(1, 3);
    g.sw = pick(1, 3);
    g.ph = pick(0, 3);
    g.pw = pick(0, 3);
    g.dh = pick(1, 2);
    g.dw = pick(1, 2);
    const int kind = pick(0, 4);
    g.groups = kind == 4 ? pick(2, 9) : (kind == 3 ? 4 : (kind == 2 ? 2 : 1));
    const int cin_g = kind == 4 ? 1 : pick(1, 9), cout_g = kind == 4 ? 1 : pick(1, 20);
    g.cin = cin_g * g.groups;
    g.cout = cout_g * g.groups;
    g.n = pick(1, 2);
    // Large enough that the kernel fits the padded input.
    g.h = std::max(1, g.dh * (g.kh - 1) + 1 - 2 * g.ph) + pick(0, 20);
    g.w = std::max(1, g.dw * (g.kw - 1) + 1 - 2 * g.pw) + pick(0, 45);
    Quant q;
    q.in_zp = pick(-128, 127);
    q.out_zp = pick(-128, 127);
    q.in_scale = 0.005 + 0.05 * pick(0, 100) / 100.0;
    q.out_scale = 0.01 + 0.2 * pick(0, 100) / 100.0;
    q.bias = pick(0, 1) == 1;
    q.weight_bits = pick(0, 1) == 1 ? 7 : 8;
    if (pick(0, 2) == 0) {
      q.out_min = std::max(-128, q.out_zp);  // relu
    } else if (pick(0, 2) == 0) {
      q.out_min = pick(-128, 0);
      q.out_max = pick(q.out_min, 127);  // hardtanh-like
    }
    ASSERT_EQ(set_num_threads(t % 2 == 0 ? 1 : 2), Error::Ok);
    check_case(g, q, 500 + t);
    if (HasFatalFailure()) break;
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dInt8, ResNetShapesOnTwoThreads) {
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  check_case({1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1}, Quant{}, 11);
  check_case({1, 256, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1}, Quant{}, 12);  // 2 strips per worker
  check_case({1, 128, 14, 14, 256, 1, 1, 1, 1, 0, 0, 1, 1, 1}, Quant{}, 13);
  // A ReLU's output as the input (zero point -128): the VNNI path needs no
  // weight row sums then; padding, an odd K and a partial last quad.
  Quant relu_input;
  relu_input.in_zp = -128;
  check_case({1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1}, relu_input, 14);
  check_case({1, 7, 9, 11, 13, 3, 3, 2, 1, 1, 0, 1, 1, 1}, relu_input, 15);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// The int8 Winograd's schedules at 2 threads (AVX2): maps of at most 16
// strips of 16 tiles split by weight panels (each worker its own filters,
// padded copy and V; odd panel counts, a narrow last strip taking panels
// in twos, a batch), larger ones by strips; 8- and 7-bit weights.
TEST(Conv2dInt8, WinogradSchedulesOnTwoThreads) {
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  const Geometry cases[] = {
      {1, 20, 14, 14, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // 49 tiles, 3 panels
      {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},      // 25 tiles, 2 panels
      {2, 16, 12, 10, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // a batch
      {1, 64, 28, 28, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // 13 strips, 12 panels
      {1, 24, 30, 30, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1},   // 15 strips, 2 panels
      {1, 16, 40, 36, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // 23 strips: by strips
  };
  uint32_t seed = 300;
  Quant seven;
  seven.weight_bits = 7;
  seven.in_zp = -128;
  for (const Geometry& g : cases) {
    check_case(g, Quant{}, seed += 3);
    check_case(g, seven, seed += 3);
    if (HasFatalFailure()) break;
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// Cout_g above the padded pixel count: at 2 threads the workers split the
// output channels (weight panels), each running every strip.
TEST(Conv2dInt8, OutputChannelSplitOnTwoThreads) {
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  Quant relu;
  relu.out_min = relu.out_zp;
  check_case({1, 40, 5, 5, 100, 3, 3, 1, 1, 1, 1, 1, 1, 1}, Quant{}, 31);  // 17 panels, 2 strips
  check_case({2, 24, 7, 7, 70, 1, 1, 1, 1, 0, 0, 1, 1, 1}, relu, 32);      // flat, half-width strip
  check_case({1, 33, 9, 9, 130, 3, 3, 2, 2, 1, 1, 1, 1, 1}, Quant{}, 33);  // stride 2, 5x5 map
  // Past the shared-weight budget: each worker widens its own panels.
  check_case({1, 600, 4, 5, 600, 3, 3, 1, 1, 1, 1, 1, 1, 1}, relu, 34);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dInt8, WeightsPastTheSharedBudgetAreWidenedPerBlock) {
  // 100 panels x K = 5400: 6.5 MB of int16 weights, past
  // kInt8ConvSharedWeightBytes, so each worker widens its K blocks itself.
  const Geometry g{1, 600, 4, 5, 600, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  quantized::Int8ConvProblem p;
  p.in_channels = p.out_channels = 600;
  p.kernel_h = p.kernel_w = 3;
  ASSERT_GT(quantized::int8_conv_widened_bytes(p), quantized::kInt8ConvSharedWeightBytes);
  check_case(g, Quant{}, 21);
}

TEST(Conv2dInt8, NonFiniteBiasGivesEagersIntegers) {
  // NaN -> 0 (eager's .to(int8) of NaN), +-inf -> the range ends; a 3x3
  // map, and a flat 7x7 one (its last strip of one pixel: the sdot path's
  // rows-as-lanes loop) with the non-finite rows in its second panel.
  const Geometry geometries[] = {{1, 4, 6, 21, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                                 {1, 12, 7, 7, 10, 1, 1, 1, 1, 0, 0, 1, 1, 1}};
  for (const Geometry& g : geometries) {
    Data d = random_data(g, 77);
    d.bias[1] = std::numeric_limits<float>::quiet_NaN();
    d.bias[2] = std::numeric_limits<float>::infinity();
    d.bias[3] = -std::numeric_limits<float>::infinity();
    if (g.cout > 7) d.bias[7] = std::numeric_limits<float>::quiet_NaN();
    Quant q;
    q.out_min = -20;
    q.out_max = 90;
    check_case(g, q, 0, &d);
  }
}

TEST(Conv2dInt8, ExtremeValuesStayExact) {
  // x = -128 with zx = 127 (|x - zx| = 255) against w = -127 everywhere: the
  // largest int32 sums the ranges allow for this K.
  const Geometry g{1, 64, 9, 18, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  Data d = random_data(g, 5);
  std::fill(d.x.begin(), d.x.end(), static_cast<int8_t>(-128));
  std::fill(d.w.begin(), d.w.end(), static_cast<int8_t>(-127));
  Quant q;
  q.in_zp = 127;
  q.out_scale = 1000.0;
  check_case(g, q, 0, &d);
}

TEST(Conv2dInt8, OutputsFarPastInt32ClampLikeTheFloatFormula) {
  // y * (1 / output_scale) beyond 2^31 in both signs: vcvtps2dq would give
  // INT_MIN for both, so the AVX2 integer epilogue must not be taken; the
  // float one clamps each to its end of the range. Then the same with a
  // scale just inside the integer epilogue's bound.
  const Geometry g{1, 32, 6, 19, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  for (const double out_scale : {1e-9, 1e-3}) {
    for (const int32_t bits : {8, 7}) {
      Quant q;
      q.out_scale = out_scale;
      q.out_min = -100;
      q.out_max = 90;
      q.weight_bits = bits;
      check_case(g, q, 61);
    }
  }
}

TEST(Conv2dInt8, ExtremeSevenBitValuesStayExact) {
  // The u8 path's largest pair sums: x - zx spans 0..255 (x + 128 as u8
  // 0..255) against w = -64 or 63, |u1 w1 + u2 w2| up to 32640 <= 32767, so
  // vpmaddubsw does not saturate. Both signs, both zero-point cases, and
  // the 2-thread panel split.
  const Geometry g{1, 64, 9, 18, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  for (const int8_t w : {int8_t{-64}, int8_t{63}}) {
    for (const int8_t x : {int8_t{127}, int8_t{-128}}) {
      Data d = random_data(g, 6, 7);
      std::fill(d.x.begin(), d.x.end(), x);
      std::fill(d.w.begin(), d.w.end(), w);
      Quant q;
      q.weight_bits = 7;
      q.in_zp = x == 127 ? -128 : 127;
      q.out_scale = 1000.0;
      check_case(g, q, 0, &d);
    }
  }
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  Quant q;
  q.weight_bits = 7;
  check_case({1, 40, 5, 5, 100, 3, 3, 1, 1, 1, 1, 1, 1, 1}, q, 41);   // output-channel split
  check_case({1, 256, 7, 7, 512, 1, 1, 1, 1, 0, 0, 1, 1, 1}, q, 42);  // flat, half strip
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// One call on random data with the given overrides (the argument checks).
Error run_default(const Geometry& g, const Quant& q, ScalarType x_dtype = ScalarType::Char,
                  std::vector<int32_t> w_shape = {}, ScalarType out_dtype = ScalarType::Char,
                  size_t arena = size_t{16} << 20, int64_t groups_override = 0) {
  const Data d = random_data(g, 1);
  TestTensor x(x_dtype, {g.n, g.cin, g.h, g.w});
  const int32_t cout_g = g.cout / std::max(1, g.groups);
  if (w_shape.empty()) w_shape = {g.groups, (cout_g + 5) / 6, (g.k() + 3) / 4, 6, 4};
  TestTensor w(ScalarType::Char, w_shape);
  TestTensor s(ScalarType::Float, {g.cout});
  s.fill(d.scales);
  Geometry shape = g;  // the output's capacity (any positive stride)
  shape.sh = std::max(1, g.sh);
  shape.sw = std::max(1, g.sw);
  TestTensor out(out_dtype, {g.n, g.cout, std::max(1, shape.oh()), std::max(1, shape.ow())});
  Args args;
  args.t(x).d(q.in_scale).i(q.in_zp).t(w).t(s).none();
  args.ints({g.kh, g.kw}).ints({g.sh, g.sw}).ints({g.ph, g.pw}).ints({g.dh, g.dw});
  args.i(groups_override != 0 ? groups_override : g.groups);
  args.d(q.out_scale).i(q.out_zp).i(q.out_min).i(q.out_max).t(out);
  std::vector<unsigned char> bytes(arena);
  MemoryAllocator temp(bytes.data(), bytes.size());
  KernelContext ctx(&temp);
  return args.run_with(native::conv2d_int8_out, ctx);
}

TEST(Conv2dInt8, WeightBitsArgumentIsOptionalAndChecked) {
  const Geometry g{1, 8, 10, 10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 2};
  Quant q;
  q.pass_weight_bits = true;  // an explicit 8
  check_case(g, q, 51);
  const Data d = random_data(g, 52, 7);
  TestTensor out(ScalarType::Char, {g.n, g.cout, g.oh(), g.ow()});
  for (const int32_t bits : {6, 9, 0}) {
    q.weight_bits = bits;
    EXPECT_EQ(run_kernel(g, q, d, out), Error::InvalidArgument) << bits;
  }
}

TEST(Conv2dInt8, WeightSumsArgumentIsOptionalAndChecked) {
  const Geometry g{1, 8, 10, 10, 12, 1, 1, 1, 1, 0, 0, 1, 1, 2};
  Quant q;
  q.pass_weight_sums = true;
  check_case(g, q, 61);
  const Data d = random_data(g, 62, 8);
  TestTensor out(ScalarType::Char, {g.n, g.cout, g.oh(), g.ow()});
  q.extra_weight_sums = 1;  // int32 [Cout + 1]
  EXPECT_EQ(run_kernel(g, q, d, out), Error::InvalidArgument);
}

TEST(Conv2dInt8, RejectsBadArguments) {
  const Geometry g{1, 8, 10, 10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 2};
  const Quant q;
  ASSERT_EQ(run_default(g, q), Error::Ok);
  EXPECT_EQ(run_default(g, q, ScalarType::Float), Error::InvalidArgument);  // input dtype
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {}, ScalarType::Float), Error::InvalidType);
  // K = 4 * 9 = 36: 9 quads, one panel of 6 rows per group.
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {2, 1, 10, 6, 4}), Error::InvalidArgument);  // K
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {2, 2, 9, 6, 4}), Error::InvalidArgument);  // panels
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {1, 1, 9, 6, 4}), Error::InvalidArgument);  // groups
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {2, 1, 9, 4, 6}), Error::InvalidArgument);  // order
  // The same bytes in the earlier flat layout (a .pte from before the quads).
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {2, 1, 36 * 6}), Error::InvalidArgument);
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {}, ScalarType::Char, size_t{16} << 20, 3),
            Error::InvalidArgument);  // groups does not divide Cin
  EXPECT_EQ(run_default(g, q, ScalarType::Char, {}, ScalarType::Char, size_t{16} << 20, -1),
            Error::InvalidArgument);
  Quant bad = q;
  bad.out_min = 10;
  bad.out_max = 9;
  EXPECT_EQ(run_default(g, bad), Error::InvalidArgument);  // output_min > output_max
  bad = q;
  bad.out_max = 128;
  EXPECT_EQ(run_default(g, bad), Error::InvalidArgument);
  bad = q;
  bad.in_zp = -129;
  EXPECT_EQ(run_default(g, bad), Error::InvalidArgument);
  bad = q;
  bad.out_scale = 0.0;
  EXPECT_EQ(run_default(g, bad), Error::InvalidArgument);
  bad = q;
  bad.in_scale = std::numeric_limits<double>::infinity();
  EXPECT_EQ(run_default(g, bad), Error::InvalidArgument);
  Geometry big_kernel = g;
  big_kernel.kh = 13;  // larger than the padded input
  EXPECT_EQ(run_default(big_kernel, q), Error::InvalidArgument);
  Geometry zero_stride = g;
  zero_stride.sw = 0;
  EXPECT_EQ(run_default(zero_stride, q), Error::InvalidArgument);
}

TEST(Conv2dInt8, ResNetLayersFitTheDefaultTempArena) {
  // extension/module's default temp allocator is 8 MiB.
  struct Layer {
    int64_t cin, hw, cout, kernel, stride;
  };
  const Layer layers[] = {{3, 224, 64, 7, 2}, {512, 7, 512, 3, 1}, {256, 14, 512, 3, 2},
                          {2048, 7, 512, 1, 1}, {64, 56, 64, 3, 1}};
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    for (const Layer& l : layers) {
      quantized::Int8ConvProblem p;
      p.batch = 1;
      p.in_channels = l.cin;
      p.height = p.width = l.hw;
      p.out_channels = l.cout;
      p.kernel_h = p.kernel_w = l.kernel;
      p.stride_h = p.stride_w = l.stride;
      p.pad_h = p.pad_w = l.kernel / 2;
      p.out_height = p.out_width = (l.hw + 2 * p.pad_h - l.kernel) / l.stride + 1;
      EXPECT_LE(quantized::int8_conv_scratch_bytes(p), size_t{8} << 20)
          << l.cin << " -> " << l.cout << " at " << l.hw << ", " << threads << " threads";
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dInt8, TooLittleTempMemoryIsAnError) {
  const Geometry g{1, 16, 20, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  const Error e = run_default(g, Quant{}, ScalarType::Char, {}, ScalarType::Char, 256);
#if defined(TORCHEDGE_QUANTIZED_ARM)
  const bool scalar = optimized::best_arm_isa() < optimized::ArmIsa::kDotProd;
#else
  const bool scalar = quantized::quant_isa() == quantized::QuantIsa::kScalar;
#endif
  if (scalar) {
    EXPECT_EQ(e, Error::Ok);  // the scalar path needs no scratch
  } else {
    EXPECT_EQ(e, Error::MemoryAllocationFailed);
  }
}

}  // namespace
}  // namespace torchedge

namespace torchedge {
namespace {

// The in-place contract (support/overlapping_input.h): out given the input's
// own bytes (a pointwise layer, as the memory planner aliases them) equals a
// separate out bit for bit, on every path (the flat AVX2 packer reads the
// input directly), on one and two threads.
TEST(Conv2dInt8, InPlaceEqualsSeparateOutput) {
  const Geometry geometries[] = {
      // n cin h  w  cout kh kw sh sw ph pw dh dw groups
      {1, 64, 25, 5, 64, 1, 1, 1, 1, 0, 0, 1, 1, 1},   // DS-CNN pointwise
      {2, 10, 3, 7, 10, 1, 1, 1, 1, 0, 0, 1, 1, 2},    // groups
      {1, 256, 7, 7, 256, 1, 1, 1, 1, 0, 0, 1, 1, 1},  // AVX2 flat packer
  };
  for (size_t threads : {size_t{1}, size_t{2}}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    uint32_t seed = 500;
    for (const Geometry& g : geometries) {
      const Quant q;
      const Data d = random_data(g, seed++);
      TestTensor separate(ScalarType::Char, {g.n, g.cout, g.oh(), g.ow()});
      TestTensor aliased(ScalarType::Char, {g.n, g.cout, g.oh(), g.ow()});
      ASSERT_EQ(run_kernel(g, q, d, separate), Error::Ok);
      ASSERT_EQ(run_kernel(g, q, d, aliased, nullptr, size_t{16} << 20, true), Error::Ok);
      expect_equal_outputs(separate.values<int8_t>(), aliased.values<int8_t>(), "in place");
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dInt8, InPlaceWithoutScratchForTheCopyIsAnError) {
  const Geometry g{1, 8, 4, 4, 8, 1, 1, 1, 1, 0, 0, 1, 1, 1};
  TestTensor out(ScalarType::Char, {1, 8, 4, 4});
  EXPECT_EQ(run_kernel(g, Quant{}, random_data(g, 3), out, nullptr, 16, true),
            Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace torchedge
