// AVX2 row loop of quantize_rows_per_group (support/group_quant.cpp), used
// on every x86 ISA: the scalar loop's operations 8 values at a time, so the
// same bits. amax is exact in any order; x / d is one float division;
// _mm256_round_ps(nearest) is nearbyint's ties-to-even; the clamp and the
// conversion act on integers in [-127, 127]. A group with NaN or +-inf
// (|x| not below inf) gets s = NaN and codes 0, as the scalar loop.
// Compiled with -mavx2 -mfma (no a * b + c here, so nothing is fused).
#include <immintrin.h>

#include <cstdint>
#include <limits>

#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {

void quantize_row_per_group_avx2(const float* x, int64_t k, int64_t group_size, int8_t* q, float* s,
                                 int32_t* sums) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
  // packs work per 128-bit lane: this puts the four 8-value runs back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t g0 = 0, j = 0; g0 < k; g0 += group_size, ++j) {
    __m256 amax = _mm256_setzero_ps(), bad = _mm256_setzero_ps();
    for (int64_t i = g0; i < g0 + group_size; i += 8) {
      const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + i), abs_mask);
      bad = _mm256_or_ps(bad, _mm256_cmp_ps(a, inf, _CMP_NLT_UQ));
      amax = _mm256_max_ps(amax, a);
    }
    if (_mm256_movemask_ps(bad) != 0) {
      s[j] = std::numeric_limits<float>::quiet_NaN();
      sums[j] = 0;
      for (int64_t i = g0; i < g0 + group_size; i += 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_setzero_si256());
      }
      continue;
    }
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const float sj = _mm_cvtss_f32(m4) / 127.0f;
    s[j] = sj;
    const __m256 d = _mm256_set1_ps(sj > 0.0f ? sj : 1.0f);
    __m256i sum = _mm256_setzero_si256();
    for (int64_t i = g0; i < g0 + group_size; i += 32) {
      __m256i v[4];
      for (int t = 0; t < 4; ++t) {
        const __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i + 8 * t), d),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v[t] = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(r, lo), hi));
        sum = _mm256_add_epi32(sum, v[t]);
      }
      const __m256i bytes =
          _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i),
                          _mm256_permutevar8x32_epi32(bytes, order));
    }
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s4 = _mm_add_epi32(s4, _mm_unpackhi_epi64(s4, s4));
    sums[j] = _mm_cvtsi128_si32(_mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x55)));
  }
}

}  // namespace quantized
}  // namespace torchedge
