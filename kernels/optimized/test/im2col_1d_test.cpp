// The 1-d im2col packer (conv/im2col_1d_avx2.cpp) against the scalar
// packer, float for float: the audio models' geometries (wav2vec2's k10 s5
// stem from one channel, k3 / k2 stride 2 unpadded, the k128 padding-64
// positional conv; Whisper's k3 s1 / s2 padding 1) and random ones (stride
// 1-6, dilation 1-3, padding up to the kernel span, lengths short and long),
// each packed in panels whose k0 starts mid-channel, n0 mid-row and nc that
// is not a multiple of the strip width, for strip widths 8, 16 and 32.
// Then the direct short-K kernel (conv/conv1d_small_k.h) against the
// implicit-im2col SGEMM, bit for bit (same sums in the same order), and
// the grouped long-kernel one (same header) against it to float rounding
// (the SGEMM adds K = Cin/groups * kernel in blocks, this kernel in one run).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/optimized/conv/conv1d_small_k.h"
#include "kernels/optimized/conv/im2col.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace {

struct Geometry {
  int64_t cin, length, kernel, stride, pad, dilation;
};

void expect_same_panels(const Geometry& g, std::mt19937& rng) {
  const int64_t span = g.dilation * (g.kernel - 1) + 1;
  const int64_t out = (g.length + 2 * g.pad - span) / g.stride + 1;
  ASSERT_GE(out, 1);
  Conv2dShape s{1, g.cin, 1, g.length, 4, 1, out, 1, g.kernel, 1, g.stride, 0, g.pad,
                1, g.dilation, 1};
  ASSERT_TRUE(detail::pack_conv1d_applies(s));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // The input sits between guard floats, so a read past either end would
  // show up as a guard value in the panel.
  std::vector<float> buffer(g.cin * g.length + 64, 7777.0f);
  for (int64_t i = 0; i < g.cin * g.length; ++i) buffer[32 + i] = dist(rng);
  const Im2colSource src{buffer.data() + 32, &s};
  const int64_t k_total = g.cin * g.kernel;
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int nr : {8, 16, 32}) {
    for (int trial = 0; trial < 6; ++trial) {
      const int64_t k0 = trial == 0 ? 0 : pick(0, k_total - 1);
      const int64_t kc = pick(1, k_total - k0);
      const int64_t n0 = trial == 0 ? 0 : pick(0, out - 1);
      const int64_t nc = trial == 0 ? out : pick(1, out - n0);
      const size_t floats = static_cast<size_t>((nc + nr - 1) / nr * nr * kc);
      std::vector<float> got(floats, -1.0f), want(floats, -2.0f);
      detail::pack_conv1d_avx2(&src, k0, kc, n0, nc, nr, got.data());
      detail::pack_im2col_scalar(&src, k0, kc, n0, nc, nr, want.data());
      for (size_t i = 0; i < floats; ++i) {
        ASSERT_EQ(got[i], want[i]) << "nr " << nr << " k0 " << k0 << " kc " << kc << " n0 "
                                   << n0 << " nc " << nc << " at " << i;
      }
    }
  }
}

TEST(Im2col1d, MatchesScalarPacker) {
#if defined(TORCHEDGE_NO_X86_SIMD) || !(defined(__x86_64__) || defined(_M_X64))
  GTEST_SKIP() << "x86 only";
#else
  if (best_isa() < Isa::kAvx2) GTEST_SKIP() << "the 1-d packer needs AVX2";
  std::mt19937 rng(31);
  const Geometry audio[] = {
      {1, 1600, 10, 5, 0, 1},   // wav2vec2 stem: one channel, k10 s5
      {6, 3199, 3, 2, 0, 1},    // wav2vec2 k3 s2, odd length
      {5, 199, 2, 2, 0, 1},     // wav2vec2 k2 s2
      {3, 49, 128, 1, 64, 1},   // positional conv: k128, padding 64 (output 50)
      {4, 300, 3, 1, 1, 1},     // Whisper conv1
      {4, 300, 3, 2, 1, 1},     // Whisper conv2
      {2, 17, 3, 2, 1, 1},      // short row: stride-2 tail chunks near the end
  };
  for (const Geometry& g : audio) {
    SCOPED_TRACE(::testing::Message() << "L=" << g.length << " k=" << g.kernel << " s="
                                      << g.stride << " p=" << g.pad);
    expect_same_panels(g, rng);
  }
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 40; ++trial) {
    Geometry g;
    g.cin = pick(1, 4);
    g.kernel = pick(1, 20);
    g.stride = pick(1, 6);
    g.dilation = pick(1, 3);
    const int64_t span = g.dilation * (g.kernel - 1) + 1;
    g.pad = pick(0, span);
    g.length = pick(span > 2 * g.pad ? span - 2 * g.pad : 1, 150);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": L=" << g.length << " k="
                                      << g.kernel << " s=" << g.stride << " p=" << g.pad
                                      << " d=" << g.dilation);
    expect_same_panels(g, rng);
  }
#endif
}

#if !defined(TORCHEDGE_NO_X86_SIMD) && (defined(__x86_64__) || defined(_M_X64))
using DirectConv1d = Error (*)(KernelContext&, const Conv2dShape&, const float*, const float*,
                               const float*, float*, const Conv2dClamp&);

struct Outputs {
  std::vector<float> got, want;  // the direct kernel's, conv2d_im2col's
};

// Runs `direct` and conv2d_im2col on the same random operands of shape `s`
// (with a bias and a clamp when asked); each output is followed by 16 guard
// floats (-9) that a store past its end would change.
Outputs run_against_gemm(DirectConv1d direct, const Conv2dShape& s, bool bias, bool clamped,
                         std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(s.batch * s.in_channels * s.in_w),
      w(s.out_channels * s.in_channels / s.groups * s.kernel_w), b(s.out_channels);
  for (float& v : x) v = dist(rng);
  for (float& v : w) v = dist(rng);
  for (float& v : b) v = dist(rng);
  Conv2dClamp clamp;
  if (clamped) clamp.min = -0.5f, clamp.max = 0.75f;
  Outputs o;
  o.got.assign(s.batch * s.out_channels * s.out_w + 16, -9.0f);
  o.want = o.got;
  static std::vector<uint8_t> arena(size_t{8} << 20);
  MemoryAllocator a1(arena.data(), arena.size());
  KernelContext ctx1(&a1);
  EXPECT_EQ(direct(ctx1, s, x.data(), w.data(), bias ? b.data() : nullptr, o.got.data(), clamp),
            Error::Ok);
  MemoryAllocator a2(arena.data(), arena.size());
  KernelContext ctx2(&a2);
  EXPECT_EQ(conv2d_im2col(ctx2, s, x.data(), w.data(), bias ? b.data() : nullptr,
                          o.want.data(), clamp),
            Error::Ok);
  return o;
}
#endif

TEST(Conv1dSmallK, SameBitsAsTheGemm) {
#if defined(TORCHEDGE_NO_X86_SIMD) || !(defined(__x86_64__) || defined(_M_X64))
  GTEST_SKIP() << "x86 only";
#else
  if (best_isa() != Isa::kAvx512) GTEST_SKIP() << "needs an AVX-512 CPU";
  std::mt19937 rng(7);
  struct Case {
    int64_t cin, length, cout, kernel, stride, pad, dilation;
    bool bias, clamp;
  };
  const Case cases[] = {
      {1, 16000, 512, 10, 5, 0, 1, false, false},  // wav2vec2's stem
      {1, 1601, 38, 10, 5, 0, 1, true, true},      // channel and position tails
      {2, 300, 7, 8, 1, 3, 1, true, false},        // two channels, padding
      {4, 257, 5, 3, 2, 1, 2, false, true},        // dilation 2
  };
  for (const Case& c : cases) {
    const int64_t span = c.dilation * (c.kernel - 1) + 1;
    const int64_t out = (c.length + 2 * c.pad - span) / c.stride + 1;
    Conv2dShape s{1, c.cin, 1, c.length, c.cout, 1, out, 1, c.kernel, 1, c.stride, 0, c.pad,
                  1, c.dilation, 1};
    ASSERT_TRUE(detail::conv1d_small_k_applies(s));
    const Outputs o = run_against_gemm(&detail::conv1d_small_k_avx512, s, c.bias, c.clamp, rng);
    for (size_t i = 0; i < o.got.size(); ++i) {
      ASSERT_EQ(o.got[i], o.want[i]) << "L " << c.length << " cout " << c.cout << " at " << i;
    }
  }
#endif
}

TEST(Conv1dGrouped, MatchesTheGemm) {
#if defined(TORCHEDGE_NO_X86_SIMD) || !(defined(__x86_64__) || defined(_M_X64))
  GTEST_SKIP() << "x86 only";
#else
  if (best_isa() != Isa::kAvx512) GTEST_SKIP() << "needs an AVX-512 CPU";
  std::mt19937 rng(11);
  struct Case {
    int64_t batch, cin, length, cout, kernel, pad, dilation, groups;
    bool bias, clamp;
  };
  const Case cases[] = {
      {1, 256, 49, 256, 128, 64, 1, 16, true, false},   // wav2vec2's positional conv, 1 s
      {2, 64, 499, 64, 128, 64, 1, 16, true, true},     // 10 s, two images, 64-wide tiles
      {1, 12, 37, 18, 5, 2, 2, 3, false, false},        // 6 outputs / group: a 2-row pass
      {1, 8, 20, 4, 7, 0, 1, 4, true, true},            // one output channel per group
  };
  for (const Case& c : cases) {
    const int64_t span = c.dilation * (c.kernel - 1) + 1;
    const int64_t out = c.length + 2 * c.pad - span + 1;
    Conv2dShape s{c.batch, c.cin, 1, c.length, c.cout, 1, out, 1, c.kernel, 1, 1, 0, c.pad,
                  1, c.dilation, c.groups};
    ASSERT_TRUE(detail::conv1d_grouped_applies(s));
    const Outputs o = run_against_gemm(&detail::conv1d_grouped_avx512, s, c.bias, c.clamp, rng);
    const size_t outputs = o.got.size() - 16;
    for (size_t i = 0; i < outputs; ++i) {
      ASSERT_NEAR(o.got[i], o.want[i], 1e-5f * (1.0f + std::fabs(o.want[i])))
          << "L " << c.length << " groups " << c.groups << " at " << i;
    }
    for (size_t i = outputs; i < o.got.size(); ++i) ASSERT_EQ(o.got[i], -9.0f) << "store past the end";
    // Too little temp memory for the padded rows: an error, y untouched.
    uint8_t tiny[64];
    MemoryAllocator small(tiny, sizeof(tiny));
    KernelContext ctx(&small);
    std::vector<float> in(c.batch * c.cin * c.length, 1.0f);
    std::vector<float> weights(c.cout * (c.cin / c.groups) * c.kernel, 1.0f);
    std::vector<float> untouched(o.got.size(), 3.0f);
    EXPECT_EQ(detail::conv1d_grouped_avx512(ctx, s, in.data(), weights.data(), nullptr,
                                            untouched.data(), Conv2dClamp{}),
              Error::MemoryAllocationFailed);
    EXPECT_EQ(untouched[0], 3.0f);
  }
#endif
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
