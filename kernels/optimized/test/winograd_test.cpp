// Winograd F(2x2, 3x3) (conv/winograd.h) against a double-precision direct
// convolution at conv2d_gemm's tolerance (1e-5 + 1e-4 relative to the sum
// of |terms|), on: odd and even output sizes (partial tiles at the right
// and bottom), padding 0 / 1 / 2, several bands of tile rows, channel
// counts that are not a multiple of 8, a batch, bias or none, and the fused
// residual and clamp, at 1 and 2 threads. Infinities and NaNs must come out
// exactly as the direct convolution has them (the path declines and
// conv2d_gemm recomputes by im2col); a temp allocator too small for the
// Winograd scratch falls back to im2col too. Under TORCHEDGE_ISA=scalar
// (ctest's second run) the path does not apply: the same cases then check
// that conv2d_gemm's im2col meets the same reference and fallbacks. The
// kernel on filters transformed ahead of time (torchedge::conv2d_winograd)
// meets the same reference, on 7x7 and 512-channel-class layers too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/optimized/conv/conv2d.h"
#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

// The kernels under test exist only in x86 builds (conv/winograd_avx2.cpp,
// winograd_avx512.cpp); other architectures build the scalar paths only.
#if defined(__x86_64__) || defined(_M_X64)
namespace torchedge {
namespace optimized {
namespace {

struct Case {
  int n, cin, h, w, cout, pad;
  bool bias, residual;
  float lo, hi;  // the clamp
};

constexpr float kInf = std::numeric_limits<float>::infinity();

const Case kCases[] = {
    {1, 8, 8, 8, 8, 1, true, false, -kInf, kInf},       // one band, 4x4 tiles
    {2, 9, 13, 9, 17, 1, false, false, -kInf, kInf},    // odd sizes, batch 2, no bias
    {1, 16, 56, 56, 16, 1, true, true, 0.0f, kInf},     // several bands, residual + relu
    {1, 12, 111, 37, 10, 1, true, false, 0.0f, 6.0f},   // odd height, many bands, relu6
    {1, 8, 12, 15, 8, 0, true, false, -kInf, kInf},     // unpadded
    {1, 8, 10, 11, 9, 2, true, true, -0.5f, 2.0f},      // padding 2
    {1, 70, 20, 20, 33, 1, true, false, -kInf, kInf},   // Cin = 8 * 8 + 6, Cout 33
    {1, 64, 28, 28, 64, 1, true, true, 0.0f, kInf},     // a ResNet block
};

Conv2dShape shape_of(const Case& c) {
  const int64_t oh = c.h + 2 * c.pad - 2, ow = c.w + 2 * c.pad - 2;
  return Conv2dShape{c.n, c.cin, c.h, c.w, c.cout, oh, ow, 3, 3, 1, 1, c.pad, c.pad, 1, 1, 1};
}

// Direct sums in double; *scale gets the sum of |terms| per output.
void reference(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w,
               const float* bias, const float* residual, float lo, float hi,
               std::vector<double>* out, std::vector<double>* scale) {
  out->assign(static_cast<size_t>(s.batch * s.out_channels * s.out_h * s.out_w), 0.0);
  scale->assign(out->size(), 0.0);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t co = 0; co < s.out_channels; ++co) {
      for (int64_t oy = 0; oy < s.out_h; ++oy) {
        for (int64_t ox = 0; ox < s.out_w; ++ox) {
          double acc = bias == nullptr ? 0.0 : bias[co], mag = std::fabs(acc);
          for (int64_t ci = 0; ci < s.in_channels; ++ci) {
            for (int64_t ky = 0; ky < 3; ++ky) {
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy - s.pad_h + ky, ix = ox - s.pad_w + kx;
                if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) continue;
                const double t =
                    static_cast<double>(x[((n * s.in_channels + ci) * s.in_h + iy) * s.in_w + ix]) *
                    w[((co * s.in_channels + ci) * 3 + ky) * 3 + kx];
                acc += t;
                mag += std::fabs(t);
              }
            }
          }
          const size_t at = static_cast<size_t>(((n * s.out_channels + co) * s.out_h + oy) * s.out_w + ox);
          if (residual != nullptr) {
            acc += residual[at];
            mag += std::fabs(residual[at]);
          }
          // The clamp as conv2d.h has it: NaN stays NaN.
          if (acc < lo) acc = lo;
          if (acc > hi) acc = hi;
          (*out)[at] = acc;
          (*scale)[at] = mag;
        }
      }
    }
  }
}

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = d(rng);
  return v;
}

// A case's random input, filters, bias and residual (drawn in that order).
struct CaseData {
  std::vector<float> x, w, b, res;
  bool has_bias, has_residual;
  const float* bias() const { return has_bias ? b.data() : nullptr; }
  const float* residual() const { return has_residual ? res.data() : nullptr; }
};

CaseData case_data(const Case& c, const Conv2dShape& s, std::mt19937& rng) {
  CaseData d;
  d.x = random_floats(static_cast<size_t>(c.n * c.cin * c.h * c.w), rng);
  d.w = random_floats(static_cast<size_t>(c.cout * c.cin * 9), rng);
  d.b = random_floats(static_cast<size_t>(c.cout), rng);
  d.res = random_floats(static_cast<size_t>(c.n * c.cout * s.out_h * s.out_w), rng);
  d.has_bias = c.bias;
  d.has_residual = c.residual;
  return d;
}

struct ConvRun {
  std::vector<float> y;
  size_t temp_used = 0;
  Error err = Error::Ok;
};

ConvRun run(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w,
        const float* bias, const float* residual, const Conv2dClamp& clamp, size_t temp_bytes,
        bool winograd_only) {
  ConvRun r;
  r.y.assign(static_cast<size_t>(s.batch * s.out_channels * s.out_h * s.out_w), 12345.0f);
  std::vector<uint8_t> temp(temp_bytes);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  r.err = winograd_only
              ? detail::conv2d_winograd_avx2(ctx, s, x.data(), w.data(), bias, r.y.data(), clamp,
                                             residual)
              : conv2d_gemm(ctx, s, x.data(), w.data(), bias, r.y.data(), clamp, residual);
  r.temp_used = allocator.used();
  return r;
}

bool has_winograd() { return best_isa() >= Isa::kAvx2; }

class WinogradTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok);
  }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(WinogradTest, MatchesDirectConvolution) {
  std::mt19937 rng(11);
  for (const Case& c : kCases) {
    const Conv2dShape s = shape_of(c);
    SCOPED_TRACE(::testing::Message() << "n=" << c.n << " cin=" << c.cin << " " << c.h << "x"
                                      << c.w << " cout=" << c.cout << " pad=" << c.pad);
    ASSERT_EQ(detail::winograd_applies(s), has_winograd());
    const CaseData d = case_data(c, s, rng);
    const std::vector<float>& x = d.x;
    const std::vector<float>& w = d.w;
    const float* bias = d.bias();
    const float* residual = d.residual();
    const Conv2dClamp clamp{c.lo, c.hi};
    std::vector<double> ref, scale;
    reference(s, x, w, bias, residual, c.lo, c.hi, &ref, &scale);
    const ConvRun got = run(s, x, w, bias, residual, clamp, size_t{32} << 20, false);
    ASSERT_EQ(got.err, Error::Ok);
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_NEAR(got.y[i], ref[i], 1e-5 + 1e-4 * scale[i]) << "at " << i;
    }
    if (!has_winograd()) continue;
    // conv2d_gemm took the Winograd path: the same bits as calling it.
    const ConvRun direct = run(s, x, w, bias, residual, clamp, size_t{32} << 20, true);
    ASSERT_EQ(direct.err, Error::Ok);
    ASSERT_EQ(0, std::memcmp(direct.y.data(), got.y.data(), got.y.size() * sizeof(float)));
  }
}

// An infinity or NaN in the input or the filters: Winograd declines and
// conv2d_gemm's result is im2col's, bit for bit (inf - inf in the
// transforms would make NaNs the direct sums do not have).
TEST_P(WinogradTest, NonFiniteOperandsFallBackToIm2col) {
  std::mt19937 rng(5);
  const Case c{1, 16, 20, 21, 16, 1, true, false, -kInf, kInf};
  const Conv2dShape s = shape_of(c);
  const std::vector<float> b = random_floats(16, rng);
  for (int which = 0; which < 4; ++which) {
    std::vector<float> x = random_floats(static_cast<size_t>(c.cin * c.h * c.w), rng);
    std::vector<float> w = random_floats(static_cast<size_t>(c.cout * c.cin * 9), rng);
    const float bad = which % 2 == 0 ? kInf : std::numeric_limits<float>::quiet_NaN();
    if (which < 2) {
      x[5 * c.w + 7] = bad;  // channel 0, row 5, column 7
    } else {
      w[3 * c.cin * 9 + 4] = bad;  // filter 3, channel 0, centre tap
    }
    SCOPED_TRACE(::testing::Message() << (which < 2 ? "input " : "filter ") << bad);
    if (has_winograd()) {
      const ConvRun winograd = run(s, x, w, b.data(), nullptr, {}, size_t{32} << 20, true);
      EXPECT_EQ(winograd.err, Error::NotSupported);
    }
    const ConvRun via_gemm = run(s, x, w, b.data(), nullptr, {}, size_t{32} << 20, false);
    ASSERT_EQ(via_gemm.err, Error::Ok);
    std::vector<float> direct(via_gemm.y.size());
    std::vector<uint8_t> temp(size_t{32} << 20);
    MemoryAllocator allocator(temp.data(), temp.size());
    KernelContext ctx(&allocator);
    ASSERT_EQ(conv2d_im2col(ctx, s, x.data(), w.data(), b.data(), direct.data()), Error::Ok);
    ASSERT_EQ(0, std::memcmp(via_gemm.y.data(), direct.data(), direct.size() * sizeof(float)));
    // The direct sums keep it local: most outputs stay finite.
    size_t finite = 0;
    for (float v : direct) finite += std::isfinite(v) ? 1 : 0;
    EXPECT_GT(finite, direct.size() / 2);
  }
}

// Too little temp memory for U, V and M: MemoryAllocationFailed with the
// output untouched; conv2d_gemm then runs im2col in what there is.
TEST_P(WinogradTest, ShortTempMemoryFallsBackToIm2col) {
  std::mt19937 rng(3);
  const Case c{1, 64, 28, 28, 64, 1, true, false, -kInf, kInf};
  const Conv2dShape s = shape_of(c);
  const std::vector<float> x = random_floats(static_cast<size_t>(64 * 28 * 28), rng);
  const std::vector<float> w = random_floats(static_cast<size_t>(64 * 64 * 9), rng);
  const std::vector<float> b = random_floats(64, rng);
  const size_t small = size_t{1536} << 10;  // im2col (<= 1.3 MB at 2 threads) fits, Winograd (~2 MB) does not
  if (has_winograd()) {
    const ConvRun winograd = run(s, x, w, b.data(), nullptr, {}, small, true);
    EXPECT_EQ(winograd.err, Error::MemoryAllocationFailed);
    EXPECT_EQ(winograd.temp_used, 0u);
    for (float v : winograd.y) ASSERT_EQ(v, 12345.0f);
  }
  const ConvRun via_gemm = run(s, x, w, b.data(), nullptr, {}, small, false);
  ASSERT_EQ(via_gemm.err, Error::Ok);
  std::vector<double> ref, scale;
  reference(s, x, w, b.data(), nullptr, -kInf, kInf, &ref, &scale);
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_NEAR(via_gemm.y[i], ref[i], 1e-5 + 1e-4 * scale[i]) << "at " << i;
  }
}

// U [16][Cout][Cin] = G g G^T in the float order of the kernel's own
// transform (and of python/torchedge/passes/conv2d_winograd_op.py).
std::vector<float> transformed_filters(const Conv2dShape& s, const std::vector<float>& w) {
  const int64_t cin = s.in_channels, cout = s.out_channels;
  std::vector<float> u(static_cast<size_t>(16 * cout * cin));
  auto g_rows = [](float a, float b, float c, float out[4]) {
    out[0] = a;
    out[1] = 0.5f * ((a + b) + c);
    out[2] = 0.5f * ((a - b) + c);
    out[3] = c;
  };
  for (int64_t co = 0; co < cout; ++co) {
    for (int64_t ci = 0; ci < cin; ++ci) {
      const float* k = &w[static_cast<size_t>((co * cin + ci) * 9)];
      float gg[3][4];  // gg[j][i]: G applied to column j, row i
      for (int j = 0; j < 3; ++j) g_rows(k[j], k[3 + j], k[6 + j], gg[j]);
      for (int i = 0; i < 4; ++i) {
        float row[4];
        g_rows(gg[0][i], gg[1][i], gg[2][i], row);
        for (int j = 0; j < 4; ++j) u[static_cast<size_t>(((i * 4 + j) * cout + co) * cin + ci)] = row[j];
      }
    }
  }
  return u;
}

// Filters transformed ahead of time (torchedge::conv2d_winograd's kernel): the
// direct sums' result at the same tolerance, on the cases above plus 7x7
// maps and more than 256 x 256 channels (which conv2d_gemm leaves to
// im2col), and where conv2d_gemm takes Winograd, the same bits as its
// per-call transform.
TEST_P(WinogradTest, PretransformedFiltersMatchDirectConvolution) {
  if (!has_winograd()) GTEST_SKIP() << "the AVX2 Winograd kernel needs AVX2";
  std::vector<Case> cases(std::begin(kCases), std::end(kCases));
  cases.push_back({1, 16, 7, 7, 24, 1, true, true, 0.0f, kInf});      // 7x7: 4x4 tiles of 2x2
  cases.push_back({2, 9, 5, 6, 8, 2, false, false, -kInf, kInf});     // 7x8 output, padding 2
  cases.push_back({1, 264, 8, 8, 260, 1, true, true, 0.0f, 6.0f});    // Cin * Cout > 65536
  cases.push_back({1, 8, 3, 3, 8, 0, true, false, -kInf, kInf});      // one output pixel
  std::mt19937 rng(17);
  for (const Case& c : cases) {
    const Conv2dShape s = shape_of(c);
    SCOPED_TRACE(::testing::Message() << "n=" << c.n << " cin=" << c.cin << " " << c.h << "x"
                                      << c.w << " cout=" << c.cout << " pad=" << c.pad);
    const CaseData d = case_data(c, s, rng);
    const std::vector<float>& x = d.x;
    const std::vector<float>& w = d.w;
    const float* bias = d.bias();
    const float* residual = d.residual();
    const Conv2dClamp clamp{c.lo, c.hi};
    const std::vector<float> u = transformed_filters(s, w);
    std::vector<float> y(d.res.size(), 12345.0f);
    std::vector<uint8_t> temp(size_t{32} << 20);
    MemoryAllocator allocator(temp.data(), temp.size());
    KernelContext ctx(&allocator);
    ASSERT_EQ(detail::conv2d_winograd_pretransformed_avx2(ctx, s, x.data(), u.data(), bias,
                                                          y.data(), clamp, residual),
              Error::Ok);
    std::vector<double> ref, scale;
    reference(s, x, w, bias, residual, c.lo, c.hi, &ref, &scale);
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_NEAR(y[i], ref[i], 1e-5 + 1e-4 * scale[i]) << "at " << i;
    }
    if (!detail::winograd_applies(s)) continue;
    const ConvRun per_call = run(s, x, w, bias, residual, clamp, size_t{32} << 20, true);
    ASSERT_EQ(per_call.err, Error::Ok);
    ASSERT_EQ(0, std::memcmp(per_call.y.data(), y.data(), y.size() * sizeof(float)));
  }
  // An infinity in the input: declined (the caller recomputes the output).
  const Case c{1, 16, 9, 9, 16, 1, true, false, -kInf, kInf};
  const Conv2dShape s = shape_of(c);
  std::vector<float> x = random_floats(static_cast<size_t>(16 * 81), rng);
  x[40] = kInf;
  const std::vector<float> u = transformed_filters(s, random_floats(16 * 16 * 9, rng));
  std::vector<float> y(static_cast<size_t>(16 * 81));
  std::vector<uint8_t> temp(size_t{4} << 20);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  EXPECT_EQ(detail::conv2d_winograd_pretransformed_avx2(ctx, s, x.data(), u.data(), nullptr,
                                                        y.data(), {}, nullptr),
            Error::NotSupported);
}

TEST(Winograd, AppliesOnlyTo3x3Stride1SingleGroup) {
  Conv2dShape s{1, 64, 56, 56, 64, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(detail::winograd_applies(s), has_winograd());
  Conv2dShape t = s;
  t.stride_h = t.stride_w = 2, t.out_h = t.out_w = 28;
  EXPECT_FALSE(detail::winograd_applies(t));
  t = s, t.groups = 2;
  EXPECT_FALSE(detail::winograd_applies(t));
  t = s, t.dilation_h = t.dilation_w = 2;
  EXPECT_FALSE(detail::winograd_applies(t));
  t = s, t.kernel_h = t.kernel_w = 5;
  EXPECT_FALSE(detail::winograd_applies(t));
  t = s, t.out_h = t.out_w = 7;  // 7x7 maps waste a quarter of their tiles
  EXPECT_FALSE(detail::winograd_applies(t));
  t = s, t.in_channels = t.out_channels = 512;  // U would be 16 MiB
  EXPECT_FALSE(detail::winograd_applies(t));
}

// The AVX-512 transforms against the transforms' formulas in scalar float,
// operation for operation (so bit for bit, as the AVX2 ones are): widths
// with partial 16-tile groups, padding 0-2, rows past the plane, a residual
// and a clamp; a NaN anywhere in the plane is reported.
TEST(Winograd, Avx512TransformsMatchTheFormulasBitForBit) {
#ifdef TORCHEDGE_NO_X86_SIMD
  GTEST_SKIP() << "x86 only";
#else
  if (best_isa() != Isa::kAvx512) GTEST_SKIP() << "needs an AVX-512 CPU";
  std::mt19937 rng(11);
  struct Plane {
    int h, w, pad;
  };
  for (const Plane& pl : {Plane{56, 56, 1}, Plane{28, 28, 1}, Plane{9, 37, 2}, Plane{6, 33, 0},
                          Plane{5, 64, 1}}) {
    const Conv2dShape s{1, 1, pl.h, pl.w, 1, pl.h + 2 * pl.pad - 2, pl.w + 2 * pl.pad - 2,
                        3, 3, 1, 1, pl.pad, pl.pad, 1, 1, 1};
    const int64_t tiles_h = (s.out_h + 1) / 2, tiles_w = (s.out_w + 1) / 2;
    const int64_t tiles = tiles_h * tiles_w;
    std::vector<float> x = random_floats(static_cast<size_t>(pl.h * pl.w), rng);
    auto at = [&](int64_t iy, int64_t ix) {
      return iy < 0 || iy >= pl.h || ix < 0 || ix >= pl.w ? 0.0f : x[iy * pl.w + ix];
    };
    // Input: V[xi][t], all tile rows as one band.
    std::vector<float> v(static_cast<size_t>(16 * tiles + 16), -1.0f), want(v.size(), -1.0f);
    ASSERT_TRUE(detail::winograd_input_avx512(s, tiles_w, x.data(), 0, tiles_h, v.data(), tiles));
    for (int64_t ty = 0; ty < tiles_h; ++ty) {
      for (int64_t tx = 0; tx < tiles_w; ++tx) {
        float d[4][4], t[4][4];
        for (int r = 0; r < 4; ++r) {
          for (int c = 0; c < 4; ++c) d[r][c] = at(2 * ty - pl.pad + r, 2 * tx - pl.pad + c);
        }
        for (int c = 0; c < 4; ++c) {
          t[0][c] = d[0][c] - d[2][c];
          t[1][c] = d[1][c] + d[2][c];
          t[2][c] = d[2][c] - d[1][c];
          t[3][c] = d[1][c] - d[3][c];
        }
        for (int i = 0; i < 4; ++i) {
          const float p[4] = {t[i][0] - t[i][2], t[i][1] + t[i][2], t[i][2] - t[i][1],
                              t[i][1] - t[i][3]};
          for (int j = 0; j < 4; ++j) want[(i * 4 + j) * tiles + ty * tiles_w + tx] = p[j];
        }
      }
    }
    EXPECT_EQ(std::memcmp(v.data(), want.data(), sizeof(float) * v.size()), 0)
        << pl.h << "x" << pl.w << " pad " << pl.pad;
    // Output: one channel from random M, + bias + residual, clamped.
    std::vector<float> m = random_floats(static_cast<size_t>(16 * tiles + 16), rng);
    std::vector<float> res = random_floats(static_cast<size_t>(s.out_h * s.out_w), rng);
    std::vector<float> y(res.size(), 12345.0f), want_y(res.size(), 12345.0f);
    const detail::WinogradEpilogue e{0.25f, res.data(), -1.5f, 1.75f, true};
    detail::winograd_output_avx512(s, tiles_w, m.data(), tiles, 0, tiles_h, e, y.data());
    for (int64_t ty = 0; ty < tiles_h; ++ty) {
      for (int64_t tx = 0; tx < tiles_w; ++tx) {
        float p[16], r[2][4];
        for (int xi = 0; xi < 16; ++xi) p[xi] = m[xi * tiles + ty * tiles_w + tx];
        for (int j = 0; j < 4; ++j) {
          r[0][j] = p[j] + p[4 + j] + p[8 + j];
          r[1][j] = p[4 + j] - p[8 + j] - p[12 + j];
        }
        for (int i = 0; i < 2; ++i) {
          const float out[2] = {r[i][0] + r[i][1] + r[i][2], r[i][1] - r[i][2] - r[i][3]};
          for (int j = 0; j < 2; ++j) {
            const int64_t oy = 2 * ty + i, ox = 2 * tx + j;
            if (oy >= s.out_h || ox >= s.out_w) continue;
            float val = out[j] + e.bias + res[oy * s.out_w + ox];
            val = std::fmin(e.max, std::fmax(e.min, val));
            want_y[oy * s.out_w + ox] = val;
          }
        }
      }
    }
    EXPECT_EQ(std::memcmp(y.data(), want_y.data(), sizeof(float) * y.size()), 0)
        << pl.h << "x" << pl.w << " pad " << pl.pad;
    x[x.size() / 2] = std::nanf("");
    EXPECT_FALSE(
        detail::winograd_input_avx512(s, tiles_w, x.data(), 0, tiles_h, v.data(), tiles));
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Threads, WinogradTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace optimized
}  // namespace torchedge
#endif  // x86
