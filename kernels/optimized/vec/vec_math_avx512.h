// torchedge/kernels/optimized/vec/vec_math_avx512.h
//
// AVX-512 building blocks for the transformer kernels: exp, tanh, erf, the
// exact GELU and sigmoid of one __m512 (16 floats), and tail masks. The
// same algorithms and constants (vec_math_coefficients.h) as
// vec_math_avx2.h, with opmask compares and blends in place of blendv and
// vscalefps in place of building 2^n in the exponent bits. Header-only and
// inline; include it ONLY from *_avx512.cpp files, which the build compiles
// with -mavx512f/dq/bw/vl and calls only when best_isa() is kAvx512.
//
// Accuracy (checked against the C library on dense sweeps in
// kernels/optimized/test/transformer_ops_test.cpp):
//   exp2_nonpositive  |rel err| <= 2.5e-7 for x in [-126, 0]; below, FLT_MIN
//            (to the same 2.5e-7).
//   exp      |rel err| <= 2 ulp for x in [-87.3, 88.7]; x < -87.3365 gives 0
//            (every result from FLT_MIN up is kept: vscalefps has no 2^-125
//            limit), x > 88.72 gives +inf, NaN stays NaN.
//   tanh     <= 2 ulp-ish (rtol 1e-6); odd polynomial below |x| 0.625,
//            1 - 2 / (exp(2|x|) + 1) above; +-inf gives +-1; NaN stays NaN.
//   erf      abs err <= 1e-7, rel <= 1e-6; odd polynomial below |x| 1,
//            1 - exp(-x^2) * P(1/|x|) above (erfc(x) exp(x^2) is smooth).
//   gelu_erf x/2 (1 + erf(x/sqrt 2)) with 1 + erf computed as erfc(|z|)
//            for negative z, so there is no cancellation: rel err <= 1e-6
//            everywhere (eager's formula loses it below x ~ -4, where both
//            are below 1e-5 in magnitude).
#pragma once

#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "vec_math_avx512.h needs -mavx512f -mavx512dq (include it from *_avx512.cpp files only)"
#endif

#include <immintrin.h>

#include <cstdint>

#include "kernels/optimized/vec/vec_math_coefficients.h"

namespace torchedge {
namespace optimized {
namespace vec_avx512 {

/// Horner evaluation c[0] + c[1] v + ... + c[N-1] v^(N-1) with FMA.
template <int N>
inline __m512 polynomial(__m512 v, const float (&c)[N]) {
  __m512 r = _mm512_set1_ps(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) r = _mm512_fmadd_ps(r, v, _mm512_set1_ps(c[i]));
  return r;
}

/// e^x. Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, degree-7
/// Taylor polynomial of e^r, times 2^n by vscalefps (exact; overflows to
/// +inf by itself for n = 128 and p > 1).
inline __m512 exp(__m512 x) {
  const __m512 kMin = _mm512_set1_ps(vec_math::kExpMin);
  // x as the second operand of max/min, so NaN passes through the clamp.
  const __m512 clamped =
      _mm512_min_ps(_mm512_set1_ps(vec_math::kExpClampMax), _mm512_max_ps(kMin, x));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(clamped, _mm512_set1_ps(vec_math::kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(vec_math::kLn2Hi), clamped);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(vec_math::kLn2Lo), r);
  const __m512 y = _mm512_scalef_ps(polynomial(r, vec_math::kExpTaylor), n);
  // Zero the lanes below log(FLT_MIN); NaN compares unordered and is kept.
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, kMin, _CMP_NLT_UQ), y);
}

/// 2^x for x <= 0, the softmax's exponential when scores are in base 2
/// (flash attention): vreduceps gives r = x - round(x) in one instruction,
/// so there is no Cody-Waite split; relative error <= 2.5e-7 down to
/// kExp2Min, below which the result is FLT_MIN, not 0 (callers that need
/// exact zeros mask them). NaN stays NaN; x > 0 is outside the contract
/// (correct up to 127, then wrong).
inline __m512 exp2_nonpositive(__m512 x) {
  // x as the second operand of max, so NaN passes through the clamp.
  const __m512 clamped = _mm512_max_ps(_mm512_set1_ps(vec_math::kExp2Min), x);
  const __m512 r = _mm512_reduce_ps(clamped, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 n = _mm512_sub_ps(clamped, r);
  return _mm512_scalef_ps(polynomial(r, vec_math::kExp2Small), n);
}

inline __m512 abs(__m512 x) { return _mm512_abs_ps(x); }

/// x with the sign bit of `sign_of`.
inline __m512 copysign(__m512 x, __m512 sign_of) {
  const __m512 sign_mask = _mm512_set1_ps(-0.0f);
  return _mm512_or_ps(_mm512_andnot_ps(sign_mask, x), _mm512_and_ps(sign_mask, sign_of));
}

inline __mmask16 is_nan(__m512 x) { return _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q); }

inline __m512 tanh(__m512 x) {
  const __m512 a = abs(x);
  const __m512 small = _mm512_mul_ps(x, polynomial(_mm512_mul_ps(x, x), vec_math::kTanhSmall));
  // 1 - 2 / (e^{2|x|} + 1) at and above kTanhSmallMax.
  const __m512 e = exp(_mm512_add_ps(a, a));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 large = _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
  const __mmask16 is_small =
      _mm512_cmp_ps_mask(a, _mm512_set1_ps(vec_math::kTanhSmallMax), _CMP_LT_OQ);
  const __m512 y = _mm512_mask_blend_ps(is_small, copysign(large, x), small);
  return _mm512_mask_blend_ps(is_nan(x), y, x);
}

/// For t >= 0: erfc(t) when t >= 1 (else unspecified), as
/// vec_avx2::erfc_large: exp(-t^2) * erfcx(t), erfcx(t) = P(1/t), t^2 split
/// into hi + lo so exp(-t^2) keeps full precision for large t.
inline __m512 erfc_large(__m512 t) {
  const __m512 tc = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(vec_math::kErfSmallMax)),
                                  _mm512_set1_ps(vec_math::kErfcxMax));
  // 1/tc: 14-bit reciprocal estimate plus one Newton step (rel err ~1e-7,
  // far below what P's 4e-7 leaves), cheaper than a division.
  const __m512 u0 = _mm512_rcp14_ps(tc);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 u = _mm512_fmadd_ps(u0, _mm512_fnmadd_ps(tc, u0, one), u0);
  const __m512 hi = _mm512_mul_ps(tc, tc);
  const __m512 lo = _mm512_fmsub_ps(tc, tc, hi);  // tc*tc - hi, exactly
  const __m512 e = _mm512_mul_ps(exp(_mm512_sub_ps(_mm512_setzero_ps(), hi)),
                                 _mm512_fnmadd_ps(lo, one, one));  // e^-lo ~ 1 - lo
  return _mm512_mul_ps(e, polynomial(u, vec_math::kErfcx));
}

inline __m512 erf(__m512 x) {
  const __m512 t = abs(x);
  const __m512 small = _mm512_mul_ps(x, polynomial(_mm512_mul_ps(x, x), vec_math::kErfSmall));
  const __mmask16 is_small = _mm512_cmp_ps_mask(t, _mm512_set1_ps(vec_math::kErfSmallMax), _CMP_LT_OQ);
  // Every lane below 1 (NaN is not): the blend below would pick `small`
  // for all of them, so the exp and the erfc polynomial are skipped.
  if (is_small == 0xFFFF) return small;
  const __m512 large = copysign(_mm512_sub_ps(_mm512_set1_ps(1.0f), erfc_large(t)), x);
  const __m512 y = _mm512_mask_blend_ps(is_small, large, small);
  return _mm512_mask_blend_ps(is_nan(x), y, x);
}

/// x/2 (1 + erf(x / sqrt 2)), see the file comment.
inline __m512 gelu_erf(__m512 x) {
  const __m512 z = _mm512_mul_ps(x, _mm512_set1_ps(vec_math::kSqrtHalf));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 small = _mm512_fmadd_ps(z, polynomial(_mm512_mul_ps(z, z), vec_math::kErfSmall), one);
  const __m512 half_x = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
  const __m512 t = abs(z);
  const __mmask16 is_small = _mm512_cmp_ps_mask(t, _mm512_set1_ps(vec_math::kErfSmallMax), _CMP_LT_OQ);
  // Every |z| below 1 (most of a transformer's activations; NaN is not):
  // the same result without the exp and the erfc polynomial.
  if (is_small == 0xFFFF) return _mm512_mul_ps(half_x, small);
  const __m512 c = erfc_large(t);
  const __mmask16 negative = _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 large = _mm512_mask_blend_ps(negative, _mm512_sub_ps(_mm512_set1_ps(2.0f), c), c);
  const __m512 one_plus_erf = _mm512_mask_blend_ps(is_small, large, small);
  // +inf gives +inf and -inf gives -inf * 0 = NaN, as the portable formula.
  return _mm512_mul_ps(half_x, one_plus_erf);
}

/// 1 / (1 + e^-x), as the portable kernel computes it.
inline __m512 sigmoid(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(one, _mm512_add_ps(one, exp(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

/// x / (1 + e^-x), as the vectorized SiLU loop (vec_loops.h) computes it.
inline __m512 silu(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(x, _mm512_add_ps(one, exp(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

/// Lane mask of the first `n` lanes (0 <= n <= 16), for loads and stores of tails.
inline __mmask16 tail_mask(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

}  // namespace vec_avx512
}  // namespace optimized
}  // namespace torchedge
