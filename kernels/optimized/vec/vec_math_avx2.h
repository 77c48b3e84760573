// torchedge/kernels/optimized/vec/vec_math_avx2.h
//
// AVX2 + FMA building blocks for the transformer kernels: exp, tanh, erf,
// the exact GELU, sigmoid and horizontal sum/max of one __m256 (8 floats).
// Header-only and inline; include it ONLY from *_avx2.cpp files, which the
// build compiles with -mavx2 -mfma and calls only when best_isa() says the
// CPU has both.
//
// Accuracy (checked against the C library on dense sweeps in
// kernels/optimized/test/transformer_ops_test.cpp):
//   exp      |rel err| <= 2 ulp for x in [-87.3, 88.7]; x < -87.3 gives 0
//            (results below ~2.4e-38 flush to zero), x > 88.72 gives +inf,
//            NaN stays NaN.
//   tanh     <= 2 ulp-ish (rtol 1e-6); odd polynomial below |x| 0.625,
//            1 - 2 / (exp(2|x|) + 1) above; +-inf gives +-1; NaN stays NaN.
//   erf      abs err <= 1e-7, rel <= 1e-6; odd polynomial below |x| 1,
//            1 - exp(-x^2) * P(1/|x|) above (erfc(x) exp(x^2) is smooth).
//   gelu_erf x/2 (1 + erf(x/sqrt 2)) with 1 + erf computed as erfc(|z|)
//            for negative z, so there is no cancellation: rel err <= 1e-6
//            everywhere (eager's formula loses it below x ~ -4, where both
//            are below 1e-5 in magnitude).
// The constants (and how the polynomials were fitted) are in
// vec_math_coefficients.h, shared with vec_math_avx512.h.
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__)
#error "vec_math_avx2.h needs -mavx2 -mfma (include it from *_avx2.cpp files only)"
#endif

#include <immintrin.h>

#include "kernels/optimized/vec/vec_math_coefficients.h"

namespace torchedge {
namespace optimized {
namespace vec_avx2 {

/// Horner evaluation c[0] + c[1] v + ... + c[N-1] v^(N-1) with FMA.
template <int N>
inline __m256 polynomial(__m256 v, const float (&c)[N]) {
  __m256 r = _mm256_set1_ps(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) r = _mm256_fmadd_ps(r, v, _mm256_set1_ps(c[i]));
  return r;
}

/// e^x. Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, degree-7
/// Taylor polynomial of e^r (truncation 5e-9 relative), times 2^n built
/// in the exponent bits.
inline __m256 exp(__m256 x) {
  const __m256 kMin = _mm256_set1_ps(vec_math::kExpMin);  // smallest normal result
  // Clamp with x as the second operand so NaN passes through (max/min return
  // their second operand for NaN) and propagates through the arithmetic.
  // The upper bound 89 > log(FLT_MAX) makes every x > 88.72 overflow to +inf.
  const __m256 clamped =
      _mm256_min_ps(_mm256_set1_ps(vec_math::kExpClampMax), _mm256_max_ps(kMin, x));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(clamped, _mm256_set1_ps(vec_math::kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(vec_math::kLn2Hi), clamped);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(vec_math::kLn2Lo), r);
  const __m256 p = polynomial(r, vec_math::kExpTaylor);
  // n is in [-126, 128]; 2^128 is not a float, so scale by 2^(n-1) * 2 (at
  // n = -126 that factor is not representable and the result flushes to 0).
  const __m256i bits = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(126)), 23);
  const __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)), _mm256_set1_ps(2.0f));
  return _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, kMin, _CMP_LT_OQ));
}

inline __m256 abs(__m256 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }

/// x with the sign bit of `sign_of`.
inline __m256 copysign(__m256 x, __m256 sign_of) {
  const __m256 sign_mask = _mm256_set1_ps(-0.0f);
  return _mm256_or_ps(_mm256_andnot_ps(sign_mask, x), _mm256_and_ps(sign_mask, sign_of));
}

inline __m256 tanh(__m256 x) {
  const __m256 a = abs(x);
  const __m256 small = _mm256_mul_ps(x, polynomial(_mm256_mul_ps(x, x), vec_math::kTanhSmall));
  // 1 - 2 / (e^{2|x|} + 1) at and above kTanhSmallMax.
  const __m256 e = exp(_mm256_add_ps(a, a));
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 large = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
  const __m256 y = _mm256_blendv_ps(copysign(large, x), small,
                                    _mm256_cmp_ps(a, _mm256_set1_ps(vec_math::kTanhSmallMax), _CMP_LT_OQ));
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/// For t >= 0: erfc(t) when t >= 1 (else unspecified), computed as
/// exp(-t^2) * erfcx(t) with erfcx(t) = P(1/t) fitted on t in [1, 10]
/// (rel err 4e-7 in float); t^2 is split into hi + lo so exp(-t^2) keeps
/// full precision for large t.
inline __m256 erfc_large(__m256 t) {
  const __m256 tc = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(vec_math::kErfSmallMax)),
                                  _mm256_set1_ps(vec_math::kErfcxMax));
  // 1/tc: 12-bit reciprocal estimate plus one Newton step (rel err ~1e-7,
  // far below what P's 4e-7 leaves), cheaper than a division.
  const __m256 u0 = _mm256_rcp_ps(tc);
  const __m256 u = _mm256_fmadd_ps(u0, _mm256_fnmadd_ps(tc, u0, _mm256_set1_ps(1.0f)), u0);
  // Beyond 10, exp(-t^2) underflows to 0 anyway; clamping keeps inf out of hi - hi.
  const __m256 hi = _mm256_mul_ps(tc, tc);
  const __m256 lo = _mm256_fmsub_ps(tc, tc, hi);  // tc*tc - hi, exactly
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = _mm256_mul_ps(exp(_mm256_sub_ps(_mm256_setzero_ps(), hi)),
                                 _mm256_fnmadd_ps(lo, one, one));  // e^-lo ~ 1 - lo
  return _mm256_mul_ps(e, polynomial(u, vec_math::kErfcx));
}

inline __m256 erf(__m256 x) {
  const __m256 t = abs(x);
  const __m256 small = _mm256_mul_ps(x, polynomial(_mm256_mul_ps(x, x), vec_math::kErfSmall));
  const __m256 is_small = _mm256_cmp_ps(t, _mm256_set1_ps(vec_math::kErfSmallMax), _CMP_LT_OQ);
  // Every lane below 1 (NaN is not): the blend below would pick `small`
  // for all of them, so the exp and the erfc polynomial are skipped.
  if (_mm256_movemask_ps(is_small) == 0xFF) return small;
  const __m256 large = copysign(_mm256_sub_ps(_mm256_set1_ps(1.0f), erfc_large(t)), x);
  const __m256 y = _mm256_blendv_ps(large, small, is_small);
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/// x/2 (1 + erf(x / sqrt 2)), see the file comment.
inline __m256 gelu_erf(__m256 x) {
  const __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(vec_math::kSqrtHalf));
  const __m256 t = abs(z);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 small = _mm256_fmadd_ps(z, polynomial(_mm256_mul_ps(z, z), vec_math::kErfSmall), one);
  const __m256 half_x = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
  const __m256 is_small = _mm256_cmp_ps(t, _mm256_set1_ps(vec_math::kErfSmallMax), _CMP_LT_OQ);
  // Every |z| below 1 (most of a transformer's activations; NaN is not):
  // the same result without the exp and the erfc polynomial.
  if (_mm256_movemask_ps(is_small) == 0xFF) return _mm256_mul_ps(half_x, small);
  const __m256 c = erfc_large(t);
  const __m256 negative = _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 large = _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(2.0f), c), c, negative);
  const __m256 one_plus_erf = _mm256_blendv_ps(large, small, is_small);
  // +inf gives +inf and -inf gives -inf * 0 = NaN, as the portable formula.
  return _mm256_mul_ps(half_x, one_plus_erf);
}

/// 1 / (1 + e^-x), as the portable kernel computes it.
inline __m256 sigmoid(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, exp(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/// Horizontal max; NaN lanes are the caller's concern (see max() in vec_kernels_avx2.cpp).
inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

/// Lane mask of the first `n` lanes (0 <= n <= 8), for loads and stores of tails.
inline __m256i tail_mask(int64_t n) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lanes);
}

}  // namespace vec_avx2
}  // namespace optimized
}  // namespace torchedge
