// The AVX2 + FMA SGEMM: a 6 x 16 register tile (12 ymm accumulators, two
// ymm of B, one broadcast of A: 15 of the 16 registers). Compiled with
// -mavx2 -mfma; entered only when best_isa() >= kAvx2.
#include <immintrin.h>

#include "kernels/optimized/gemm/sgemm_driver.h"

namespace torchedge {
namespace optimized {
namespace {

struct Avx2Kernel {
  static constexpr int kMr = 6;
  static constexpr int kNr = 16;
  // A strip 6 x 256 (6 KiB) + B strip 256 x 16 (16 KiB) fit a 32 KiB L1;
  // an A block of 120 x 256 (120 KiB) sits in L2; the B panel in L2/L3.
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 120;
  static constexpr int64_t kNc = 1536;

  static void micro(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc,
                    bool accumulate) {
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (int64_t k = 0; k < kc; ++k) {
      const __m256 b0 = _mm256_load_ps(pb);
      const __m256 b1 = _mm256_load_ps(pb + 8);
      __m256 a = _mm256_broadcast_ss(pa + 0);
      c00 = _mm256_fmadd_ps(a, b0, c00);
      c01 = _mm256_fmadd_ps(a, b1, c01);
      a = _mm256_broadcast_ss(pa + 1);
      c10 = _mm256_fmadd_ps(a, b0, c10);
      c11 = _mm256_fmadd_ps(a, b1, c11);
      a = _mm256_broadcast_ss(pa + 2);
      c20 = _mm256_fmadd_ps(a, b0, c20);
      c21 = _mm256_fmadd_ps(a, b1, c21);
      a = _mm256_broadcast_ss(pa + 3);
      c30 = _mm256_fmadd_ps(a, b0, c30);
      c31 = _mm256_fmadd_ps(a, b1, c31);
      a = _mm256_broadcast_ss(pa + 4);
      c40 = _mm256_fmadd_ps(a, b0, c40);
      c41 = _mm256_fmadd_ps(a, b1, c41);
      a = _mm256_broadcast_ss(pa + 5);
      c50 = _mm256_fmadd_ps(a, b0, c50);
      c51 = _mm256_fmadd_ps(a, b1, c51);
      pa += kMr;
      pb += kNr;
    }
    store_row(c + 0 * ldc, c00, c01, accumulate);
    store_row(c + 1 * ldc, c10, c11, accumulate);
    store_row(c + 2 * ldc, c20, c21, accumulate);
    store_row(c + 3 * ldc, c30, c31, accumulate);
    store_row(c + 4 * ldc, c40, c41, accumulate);
    store_row(c + 5 * ldc, c50, c51, accumulate);
  }

  // The same tile with A read in place (no packing): rows a, a + lda, ...,
  // a + 5 * lda, k-th column at offset k. For small N, where a packed A
  // strip would be used by only a few B strips, packing A costs about as
  // much as the FMAs it feeds (sgemm_driver.h, kDirectAMaxN). Only the
  // first `cols` columns of the tile are needed: cols <= 8 (a narrow last
  // strip, e.g. N = 49) runs half the FMAs and touches columns 0-7 only.
  static void micro_direct_a(int64_t kc, const float* a, int64_t lda, const float* pb, float* c,
                             int64_t ldc, bool accumulate, int64_t cols) {
    if (cols <= 8) {
      direct_a_tile<false>(kc, a, lda, pb, c, ldc, accumulate);
    } else {
      direct_a_tile<true>(kc, a, lda, pb, c, ldc, accumulate);
    }
  }

  template <bool kWide>
  static inline void direct_a_tile(int64_t kc, const float* a, int64_t lda, const float* pb,
                                   float* c, int64_t ldc, bool accumulate) {
    const float* a0 = a;
    const float* a1 = a + lda;
    const float* a2 = a + 2 * lda;
    const float* a3 = a + 3 * lda;
    const float* a4 = a + 4 * lda;
    const float* a5 = a + 5 * lda;
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (int64_t k = 0; k < kc; ++k) {
      const __m256 b0 = _mm256_load_ps(pb);
      __m256 x = _mm256_broadcast_ss(a0 + k);
      c00 = _mm256_fmadd_ps(x, b0, c00);
      if constexpr (kWide) c01 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c01);
      x = _mm256_broadcast_ss(a1 + k);
      c10 = _mm256_fmadd_ps(x, b0, c10);
      if constexpr (kWide) c11 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c11);
      x = _mm256_broadcast_ss(a2 + k);
      c20 = _mm256_fmadd_ps(x, b0, c20);
      if constexpr (kWide) c21 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c21);
      x = _mm256_broadcast_ss(a3 + k);
      c30 = _mm256_fmadd_ps(x, b0, c30);
      if constexpr (kWide) c31 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c31);
      x = _mm256_broadcast_ss(a4 + k);
      c40 = _mm256_fmadd_ps(x, b0, c40);
      if constexpr (kWide) c41 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c41);
      x = _mm256_broadcast_ss(a5 + k);
      c50 = _mm256_fmadd_ps(x, b0, c50);
      if constexpr (kWide) c51 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c51);
      pb += kNr;
    }
    if constexpr (kWide) {
      store_row(c + 0 * ldc, c00, c01, accumulate);
      store_row(c + 1 * ldc, c10, c11, accumulate);
      store_row(c + 2 * ldc, c20, c21, accumulate);
      store_row(c + 3 * ldc, c30, c31, accumulate);
      store_row(c + 4 * ldc, c40, c41, accumulate);
      store_row(c + 5 * ldc, c50, c51, accumulate);
    } else {
      store_half(c + 0 * ldc, c00, accumulate);
      store_half(c + 1 * ldc, c10, accumulate);
      store_half(c + 2 * ldc, c20, accumulate);
      store_half(c + 3 * ldc, c30, accumulate);
      store_half(c + 4 * ldc, c40, accumulate);
      store_half(c + 5 * ldc, c50, accumulate);
    }
  }

  static inline void store_half(float* c, __m256 lo, bool accumulate) {
    if (accumulate) lo = _mm256_add_ps(lo, _mm256_loadu_ps(c));
    _mm256_storeu_ps(c, lo);
  }

  static inline void store_row(float* c, __m256 lo, __m256 hi, bool accumulate) {
    if (accumulate) {
      lo = _mm256_add_ps(lo, _mm256_loadu_ps(c));
      hi = _mm256_add_ps(hi, _mm256_loadu_ps(c + 8));
    }
    _mm256_storeu_ps(c, lo);
    _mm256_storeu_ps(c + 8, hi);
  }
};

}  // namespace

namespace detail {
Error sgemm_avx2(KernelContext& ctx, const SgemmProblem& p) {
  return sgemm_driver::run<Avx2Kernel>(ctx, p);
}
size_t sgemm_scratch_bytes_avx2(const SgemmProblem& p) {
  return sgemm_driver::scratch_bytes<Avx2Kernel>(p);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
