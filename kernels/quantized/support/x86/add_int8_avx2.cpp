// AVX2 path of torchedge::add_int8.out (contract: support/int8_add.h): the
// scalar path's float operations, 32 elements at a time, in its order
// (convert, subtract the zero point, multiply by the scale; add; multiply by
// the inverse scale, round to nearest even, add the zero point, clamp;
// NaN -> 0). The tail goes through the scalar path. Compiled with -mavx2
// -mfma (and -ffp-contract=off: nothing fused).
#include <immintrin.h>

#include "kernels/quantized/support/int8_add.h"

namespace torchedge {
namespace quantized {

void int8_add_avx2(const Int8AddProblem& p, int64_t begin, int64_t end) {
  const __m256 a_scale = _mm256_set1_ps(static_cast<float>(p.a_scale));
  const __m256 a_zp = _mm256_set1_ps(static_cast<float>(p.a_zero_point));
  const __m256 b_scale = _mm256_set1_ps(static_cast<float>(p.b_scale));
  const __m256 b_zp = _mm256_set1_ps(static_cast<float>(p.b_zero_point));
  const __m256 inv = _mm256_set1_ps(p.out_params.inv_scale);
  const __m256 zp = _mm256_set1_ps(p.out_params.zero_point);
  const __m256 lo = _mm256_set1_ps(p.out_params.quant_min);
  const __m256 hi = _mm256_set1_ps(p.out_params.quant_max);
  // packs_epi32 + packs_epi16 leave 4-byte groups in the order 0 2 4 6 1 3 5 7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  auto eight = [&](const int8_t* a, const int8_t* b) {
    const __m128i a8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(a));
    const __m128i b8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b));
    const __m256 fa =
        _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(a8)), a_zp), a_scale);
    const __m256 fb =
        _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b8)), b_zp), b_scale);
    __m256 r = _mm256_round_ps(_mm256_mul_ps(_mm256_add_ps(fa, fb), inv),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_add_ps(r, zp);
    const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
    r = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(r, lo), hi));
    return _mm256_cvttps_epi32(r);
  };
  int64_t i = begin;
  for (; i + 32 <= end; i += 32) {
    const __m256i v0 = eight(p.a + i, p.b + i), v1 = eight(p.a + i + 8, p.b + i + 8);
    const __m256i v2 = eight(p.a + i + 16, p.b + i + 16), v3 = eight(p.a + i + 24, p.b + i + 24);
    const __m256i packed =
        _mm256_packs_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p.out + i),
                        _mm256_permutevar8x32_epi32(packed, order));
  }
  if (i < end) int8_add_scalar(p, i, end);
}

}  // namespace quantized
}  // namespace torchedge
