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
