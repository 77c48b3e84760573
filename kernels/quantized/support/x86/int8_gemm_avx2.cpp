// AVX2 inner loop of the int8 GEMM: weights widened to int16 once per 16 k
// and shared by 4 rows; _mm256_madd_epi16 multiplies int16 pairs into int32
// (|x| <= 255, |w| <= 128: a pair sum <= 65280, no saturation, unlike
// maddubs on raw int8 operands). Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include <cstdint>

#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/simd_sums_x86.h"

template <int MT>
void tile(const Int8GemmProblem& p, int64_t n, int64_t m0) {
  const int8_t* w = p.w + n * p.k;
  __m256i acc[MT];
  for (int i = 0; i < MT; ++i) acc[i] = _mm256_setzero_si256();
  int64_t kk = 0;
  for (; kk + 16 <= p.k; kk += 16) {
    const __m256i w16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + kk)));
    for (int i = 0; i < MT; ++i) {
      const __m256i x16 =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.x + (m0 + i) * p.k + kk));
      acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(x16, w16));
    }
  }
  for (int i = 0; i < MT; ++i) {
    const int16_t* x = p.x + (m0 + i) * p.k;
    int32_t sum = hsum_epi32(acc[i]);
    for (int64_t t = kk; t < p.k; ++t) sum += static_cast<int32_t>(x[t]) * w[t];
    p.out[(m0 + i) * p.n + n] = requantize(sum, p, n);
  }
}

}  // namespace

void int8_gemm_requant_avx2(const Int8GemmProblem& p, int64_t n_begin, int64_t n_end) {
  for (int64_t n = n_begin; n < n_end; ++n) {
    int64_t m0 = 0;
    for (; m0 + 4 <= p.m; m0 += 4) tile<4>(p, n, m0);
    switch (p.m - m0) {
      case 3: tile<3>(p, n, m0); break;
      case 2: tile<2>(p, n, m0); break;
      case 1: tile<1>(p, n, m0); break;
      default: break;
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
