// SGEMM against a double-precision reference, for every ISA this CPU runs,
// at 1 and 2 threads: odd sizes and tile edges (every partial strip height
// 1-5 of the 6-row AVX2 tile, partial B strips below and above 8 columns),
// K not a multiple of 8, K spanning several KC blocks, transposed operands
// (the vectorized packers of both B layouts), batches (split among threads
// or within items), the epilogue with an addend (alpha, beta/addend, row and
// column bias, clamp) and without one (the vectorized bias/clamp path, NaN
// kept), each also with the GELU last, and a custom B packer.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace {

struct Case {
  int64_t m, n, k, batch;
  bool trans_a, trans_b;
  int64_t b_offset = 0;  // B starts this many floats into its buffer (alignment)
};

std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<Isa> runnable_isas() {
  std::vector<Isa> isas{Isa::kScalar};
  if (static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2)) isas.push_back(Isa::kAvx2);
  if (best_isa() == Isa::kAvx512) isas.push_back(Isa::kAvx512);
  return isas;
}

enum class Epilogue { kNone, kFull, kNoAddend, kFullGelu, kNoAddendGelu, kGeluOnly };

// Runs one case with the epilogue `epi`.
void check_case(const Case& cs, Isa isa, Epilogue epi, std::mt19937& rng) {
  const bool gelu_only = epi == Epilogue::kGeluOnly;
  const bool with_epilogue = epi != Epilogue::kNone && !gelu_only;
  const bool with_addend = epi == Epilogue::kFull || epi == Epilogue::kFullGelu;
  const bool with_gelu =
      epi == Epilogue::kFullGelu || epi == Epilogue::kNoAddendGelu || gelu_only;
  const int64_t m = cs.m, n = cs.n, k = cs.k, batch = cs.batch;
  std::vector<float> a = random_vector(static_cast<size_t>(batch * m * k), rng);
  const std::vector<float> b_storage =
      random_vector(static_cast<size_t>(batch * k * n + cs.b_offset), rng);
  const float* b = b_storage.data() + cs.b_offset;
  std::vector<float> addend = random_vector(static_cast<size_t>(batch * m * n), rng);
  std::vector<float> row_bias = random_vector(static_cast<size_t>(m), rng);
  std::vector<float> col_bias = random_vector(static_cast<size_t>(n), rng);
  const int64_t ldc = n + 3;  // C rows padded: ldc != n is part of the contract
  std::vector<float> c(static_cast<size_t>(batch * m * ldc), 12345.0f);
  SgemmProblem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  // A stored [m, k] (or [k, m] when transposed); B [k, n] (or [n, k]).
  p.a = cs.trans_a ? MatrixView{a.data(), 1, m} : MatrixView{a.data(), k, 1};
  p.b = cs.trans_b ? MatrixView{b, 1, k} : MatrixView{b, n, 1};
  p.c = c.data();
  p.ldc = ldc;
  p.batch_stride_a = m * k, p.batch_stride_b = k * n, p.batch_stride_c = m * ldc;
  if (with_epilogue) {
    p.alpha = 0.75f;
    if (with_addend) {
      p.beta = -0.5f;
      p.addend = MatrixView{addend.data(), n, 1};
      p.batch_stride_addend = m * n;
    } else if (m * k > 0) {
      a[0] = std::nanf("");  // row 0 of item 0 is NaN, and stays NaN through the clamp
    }
    p.row_bias = row_bias.data();
    p.col_bias = col_bias.data();
    p.min = -3.0f, p.max = 2.5f;
  }
  p.gelu = with_gelu;
  std::vector<uint8_t> temp(size_t{16} << 20);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  ASSERT_EQ(sgemm_with_isa(ctx, p, isa), Error::Ok);
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          const double av = a[bi * m * k + (cs.trans_a ? kk * m + i : i * k + kk)];
          const double bv = b[bi * k * n + (cs.trans_b ? j * k + kk : kk * n + j)];
          sum += av * bv;
          mag += std::fabs(av * bv);
        }
        double ref = sum;
        if (with_epilogue) {
          ref = 0.75 * sum + row_bias[i] + col_bias[j];
          if (with_addend) ref -= 0.5 * addend[bi * m * n + i * n + j];
          ref = std::min(2.5, std::max(-3.0, ref));
        }
        double scale = 1.0;  // |d gelu / dx| <= 1.13: errors before it grow at most that much
        if (with_gelu) {
          ref = 0.5 * ref * (1.0 + std::erf(ref / std::sqrt(2.0)));
          scale = 1.13;
        }
        const double got = c[bi * m * ldc + i * ldc + j];
        if (std::isnan(sum)) {
          ASSERT_TRUE(std::isnan(got))
              << "isa " << isa_name(isa) << " at (" << i << ", " << j << ")";
          continue;
        }
        ASSERT_NEAR(got, ref, scale * (1e-5 + 1e-4 * (mag + std::fabs(ref))))
            << "isa " << isa_name(isa) << " m=" << m << " n=" << n << " k=" << k << " b=" << bi
            << " at (" << i << ", " << j << ")";
      }
      // The padding between rows of C is never written.
      for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[bi * m * ldc + i * ldc + j], 12345.0f);
    }
  }
}

const Case kCases[] = {
    {1, 1, 1, 1, false, false},      {6, 16, 8, 1, false, false},
    {7, 17, 9, 1, false, false},     {5, 15, 7, 1, true, false},
    {13, 33, 300, 1, false, true},   {121, 50, 27, 1, true, true},
    {130, 1600, 5, 1, false, false}, {64, 49, 520, 1, false, false},
    {3, 70, 0, 1, false, false},     {37, 23, 65, 3, false, true},
    {17, 31, 19, 5, true, false},    {200, 40, 40, 1, false, false},
    {128, 100, 384, 1, false, true}, {197, 72, 24, 1, false, false},
    {50, 40, 30, 3, false, false},   {30, 40, 50, 4, true, true},
    {9, 200, 16, 1, false, false},
    // B read in place (M <= 64, unit column stride): every row remainder
    // (4, 5, 1, 2), several K blocks, a partial last strip, a batch, and
    // rows 64 bytes apart (N = 256: all in 4 L1 sets, so K = 40 in place,
    // K = 300 packed).
    {16, 1000, 32, 1, false, false}, {29, 300, 96, 1, false, false},
    {1, 50, 10, 1, false, false},    {26, 200, 64, 1, false, false},
    {20, 71, 600, 1, false, false},  {12, 40, 20, 3, false, false},
    {64, 256, 40, 1, false, false},  {48, 256, 300, 1, false, false},
};

class SgemmTest : public ::testing::TestWithParam<int> {};

TEST_P(SgemmTest, MatchesReference) {
  ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok);
  std::mt19937 rng(42);
  for (Isa isa : runnable_isas()) {
    for (const Case& cs : kCases) {
      check_case(cs, isa, Epilogue::kNone, rng);
      check_case(cs, isa, Epilogue::kFull, rng);
      check_case(cs, isa, Epilogue::kNoAddend, rng);
      check_case(cs, isa, Epilogue::kFullGelu, rng);
      check_case(cs, isa, Epilogue::kNoAddendGelu, rng);
      check_case(cs, isa, Epilogue::kGeluOnly, rng);
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

INSTANTIATE_TEST_SUITE_P(Threads, SgemmTest, ::testing::Values(1, 2));

// A custom packer that produces B = the K x N matrix with b[k][n] = k - n,
// like convolution's implicit im2col.
void pack_k_minus_n(const void*, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,
                    float* dst) {
  for (int64_t s = 0; s < nc; s += nr) {
    for (int64_t k = 0; k < kc; ++k) {
      for (int j = 0; j < nr; ++j) {
        dst[s * kc + k * nr + j] = s + j < nc ? static_cast<float>(k0 + k - (n0 + s + j)) : 0.0f;
      }
    }
  }
}

// B read in place with rows exactly one 16-float strip apart and not
// 64-byte aligned (a transposed A rules out reading A in place, so the
// driver reads B in place): no kernel may take it for an aligned packed strip.
TEST(Sgemm, InPlaceBWithSixteenColumnsAtAnyAlignment) {
  std::mt19937 rng(5);
  for (Isa isa : runnable_isas()) {
    for (int64_t offset : {0, 1, 4, 15}) {
      const Case cs{20, 16, 40, 1, true, false, offset};
      check_case(cs, isa, Epilogue::kNone, rng);
      check_case(cs, isa, Epilogue::kFull, rng);
    }
  }
}

TEST(Sgemm, CustomPackerAndErrors) {
  const int64_t m = 9, n = 37, k = 300;
  std::vector<float> a(m * k, 0.0f), c(m * n);
  for (int64_t i = 0; i < m; ++i) a[i * k + i] = 1.0f;  // row i picks B row i
  std::vector<uint8_t> temp(size_t{8} << 20);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  SgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a = MatrixView{a.data(), k, 1};
  p.pack_b = &pack_k_minus_n;
  p.c = c.data();
  p.ldc = n;
  ASSERT_EQ(sgemm(ctx, p), Error::Ok);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) EXPECT_EQ(c[i * n + j], static_cast<float>(i - j));
  }
  p.batch = 2;
  EXPECT_EQ(sgemm(ctx, p), Error::InvalidArgument);
  p.batch = 1;
  p.m = -1;
  EXPECT_EQ(sgemm(ctx, p), Error::InvalidArgument);
  p.m = m;
  KernelContext no_scratch(nullptr);
  EXPECT_EQ(sgemm(no_scratch, p), Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
