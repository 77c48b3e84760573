// The AMX float32 GEMM (gemm/sgemm_amx.h) against the AVX-512 SGEMM on the
// same prepacked problem: within 2e-6 of the largest |value| (six bf16 tile
// products keep float32 accuracy; the summation order differs), for M not a
// multiple of the 128-row panel or of 32, N not a multiple of 16 (an odd
// strip count: the zero strip beside it), K not a multiple of 32, with the
// bias, the residual addend and the GELU, at 1 and 2 threads (at 2, products
// with fewer than 4 panels split their columns across the workers, larger
// ones their rows). Operands with
// an infinity, a NaN or a subnormal (which the tile unit reads as zero) are
// declined (NotSupported) and the SGEMM computes them; when it applies; scratch too small is an error with C untouched.
// Skipped where the CPU or kernel has no AMX or TORCHEDGE_ISA turns it off
// (the suite's avx2 / scalar runs).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/optimized/gemm/sgemm_amx.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace {

struct Problem {
  int64_t m, n, k;
  std::vector<float> a, strips, bias, residual;

  Problem(int64_t m_, int64_t n_, int64_t k_, uint32_t seed) : m(m_), n(n_), k(k_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    a.resize(m * k);
    for (float& v : a) v = dist(rng);
    strips.assign(((n + 15) / 16) * k * 16, 0.0f);  // B^T = weight [N, K], 16-wide strips
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t kk = 0; kk < k; ++kk) strips[(j / 16) * k * 16 + kk * 16 + j % 16] = dist(rng);
    }
    bias.resize(n);
    for (float& v : bias) v = dist(rng);
    residual.resize(m * n);
    for (float& v : residual) v = dist(rng);
  }

  SgemmProblem gemm(float* c, bool with_bias, bool with_residual, bool gelu) const {
    SgemmProblem p;
    p.m = m, p.n = n, p.k = k;
    p.a = MatrixView{a.data(), k, 1};
    p.b_prepacked = strips.data();
    p.b_prepacked_nr = 16;
    p.c = c;
    p.ldc = n;
    if (with_bias) p.col_bias = bias.data();
    if (with_residual) {
      p.beta = 1.0f;
      p.addend = MatrixView{residual.data(), n, 1};
    }
    p.gelu = gelu;
    return p;
  }
};

Error run_amx(const SgemmProblem& p) {
  std::vector<uint8_t> arena(sgemm_amx_scratch_bytes(p) + 128);
  MemoryAllocator allocator(arena.data(), arena.size());
  KernelContext ctx(&allocator);
  return sgemm_amx(ctx, p);
}

void run_sgemm(const SgemmProblem& p) {
  std::vector<uint8_t> arena(sgemm_scratch_bytes(p) + 128);
  MemoryAllocator allocator(arena.data(), arena.size());
  KernelContext ctx(&allocator);
  ASSERT_EQ(sgemm(ctx, p), Error::Ok);
}

class SgemmAmxTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!amx_usable()) GTEST_SKIP() << "no AMX here (or TORCHEDGE_ISA turns it off)";
    ASSERT_EQ(set_num_threads(GetParam()), Error::Ok);
  }
  void TearDown() override { set_num_threads(1); }
};

TEST_P(SgemmAmxTest, MatchesTheSgemm) {
  struct Case {
    int64_t m, n, k;
    bool bias, residual, gelu;
  };
  const Case cases[] = {
      {1500, 256, 256, true, false, false},   // Whisper's q / k / v
      {1500, 1024, 256, true, false, true},   // fc1 + GELU
      {1500, 256, 1024, true, true, false},   // fc2 + residual
      {300, 40, 100, false, true, true},      // 3 strips (odd), K % 32 != 0, M % 128 != 0
      {257, 1, 33, true, false, false},       // one column, a 1-row last panel
      {kSgemmAmxMinRows, 200, 96, true, true, true},  // 13 strips: 7 column blocks for 2 workers
      {600, 64, 64, true, false, false},      // 5 panels: rows split at 2 threads
  };
  for (const Case& c : cases) {
    const Problem prob(c.m, c.n, c.k, static_cast<uint32_t>(c.m + c.n + c.k));
    std::vector<float> got(c.m * c.n, -7.0f), want(c.m * c.n, -8.0f);
    const SgemmProblem p = prob.gemm(got.data(), c.bias, c.residual, c.gelu);
    ASSERT_TRUE(sgemm_amx_applies(p));
    ASSERT_EQ(run_amx(p), Error::Ok);
    run_sgemm(prob.gemm(want.data(), c.bias, c.residual, c.gelu));
    float peak = 0.0f;
    for (float v : want) peak = std::fmax(peak, std::fabs(v));
    for (int64_t i = 0; i < c.m * c.n; ++i) {
      ASSERT_NEAR(got[i], want[i], 2e-6f * peak)
          << c.m << "x" << c.n << "x" << c.k << " at row " << i / c.n << " col " << i % c.n;
    }
  }
}

TEST_P(SgemmAmxTest, DeclinesNonFiniteOperands) {
  for (bool in_weights : {false, true}) {
    for (float bad : {std::numeric_limits<float>::infinity(), std::nanf(""),
                      std::numeric_limits<float>::denorm_min() * 1000}) {
      Problem prob(300, 48, 64, 5);
      (in_weights ? prob.strips[16 * 5 + 3] : prob.a[64 * 200 + 7]) = bad;
      std::vector<float> got(300 * 48, -7.0f);
      EXPECT_EQ(run_amx(prob.gemm(got.data(), true, false, false)), Error::NotSupported);
      // A bad weight is found before any of C is written (split by rows), or
      // before its worker writes its own columns (split by columns).
      if (in_weights) EXPECT_EQ(got[0], -7.0f);
    }
  }
}

TEST_P(SgemmAmxTest, ScratchTooSmallLeavesCUntouched) {
  const Problem prob(300, 48, 64, 9);
  std::vector<float> got(300 * 48, -7.0f);
  const SgemmProblem p = prob.gemm(got.data(), false, false, false);
  std::vector<uint8_t> arena(sgemm_amx_scratch_bytes(p) / 2);
  MemoryAllocator allocator(arena.data(), arena.size());
  KernelContext ctx(&allocator);
  EXPECT_EQ(sgemm_amx(ctx, p), Error::MemoryAllocationFailed);
  for (float v : got) ASSERT_EQ(v, -7.0f);
}

TEST_P(SgemmAmxTest, AppliesOnlyWhereItCanRun) {
  Problem prob(300, 48, 64, 3);
  std::vector<float> c(300 * 48);
  SgemmProblem p = prob.gemm(c.data(), true, true, false);
  EXPECT_TRUE(sgemm_amx_applies(p));
  SgemmProblem few_rows = p;
  few_rows.m = kSgemmAmxMinRows - 1;
  EXPECT_FALSE(sgemm_amx_applies(few_rows));
  SgemmProblem clamped = p;
  clamped.max = 6.0f;
  EXPECT_FALSE(sgemm_amx_applies(clamped));
  SgemmProblem in_place = p;  // C over the residual: declining later would lose it
  in_place.c = prob.residual.data();
  EXPECT_FALSE(sgemm_amx_applies(in_place));
  SgemmProblem wide = p;
  wide.b_prepacked_nr = 32;
  EXPECT_FALSE(sgemm_amx_applies(wide));
}

INSTANTIATE_TEST_SUITE_P(Threads, SgemmAmxTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace optimized
}  // namespace torchedge
