// The AVX-512 SGEMM: a 6 x 32 register tile (12 zmm accumulators, two zmm
// of B, one broadcast of A). Compiled with -mavx512f/dq/bw/vl; entered only
// when best_isa() == kAvx512. NOTE: the development machine (AMD EPYC,
// AVX2 only) cannot execute this path; it is covered by the same tests as
// the other ISAs on a CPU that has AVX-512.
#include <immintrin.h>

#include "kernels/optimized/gemm/sgemm_driver.h"

namespace torchedge {
namespace optimized {
namespace {

struct Avx512Kernel {
  static constexpr int kMr = 6;
  static constexpr int kNr = 32;
  static constexpr int64_t kKc = 256;  // B strip 256 x 32 = 32 KiB (L1 + L2 streaming)
  static constexpr int64_t kMc = 120;
  static constexpr int64_t kNc = 1536;

  static void micro(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc,
                    bool accumulate) {
    __m512 acc[kMr][2];
    for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kc; ++k) {
      const __m512 b0 = _mm512_load_ps(pb);
      const __m512 b1 = _mm512_load_ps(pb + 16);
      for (int i = 0; i < kMr; ++i) {  // fully unrolled by the compiler
        const __m512 a = _mm512_set1_ps(pa[i]);
        acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
      }
      pa += kMr;
      pb += kNr;
    }
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      __m512 lo = acc[i][0], hi = acc[i][1];
      if (accumulate) {
        lo = _mm512_add_ps(lo, _mm512_loadu_ps(row));
        hi = _mm512_add_ps(hi, _mm512_loadu_ps(row + 16));
      }
      _mm512_storeu_ps(row, lo);
      _mm512_storeu_ps(row + 16, hi);
    }
  }
};

}  // namespace

namespace detail {
Error sgemm_avx512(KernelContext& ctx, const SgemmProblem& p) {
  return sgemm_driver::run<Avx512Kernel>(ctx, p);
}
size_t sgemm_scratch_bytes_avx512(const SgemmProblem& p) {
  return sgemm_driver::scratch_bytes<Avx512Kernel>(p);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
