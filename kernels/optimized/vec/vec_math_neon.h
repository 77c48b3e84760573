// torchedge/kernels/optimized/vec/vec_math_neon.h
//
// AArch64 NEON building blocks for the transformer kernels: exp, tanh, erf,
// the exact GELU and sigmoid of one float32x4_t. The same algorithms and
// constants (vec_math_coefficients.h) as vec_math_avx2.h, so the accuracy
// statements there hold here too (checked by the same sweeps in
// kernels/optimized/test/transformer_ops_test.cpp, run under qemu-aarch64):
//   exp      |rel err| <= 2 ulp for x in [-87.3, 88.7]; x < -87.3365 gives 0,
//            x > 88.72 gives +inf, NaN stays NaN.
//   tanh     rtol 1e-6; +-inf gives +-1; NaN stays NaN.
//   erf      abs err <= 1e-7, rel <= 1e-6.
//   gelu_erf rel err <= 1e-6 everywhere (1 + erf as erfc(|z|) for z < 0).
// Differences from AVX2 that matter: NEON's fmin / fmax return NaN when
// either operand is NaN (the clamps keep NaN whatever the operand order),
// and 1/t is a plain division (fdiv is one instruction; there is no
// 12-bit estimate worth refining).
//
// Header-only and inline; include ONLY from *_neon.cpp files (built on
// aarch64 only, entered when best_arm_isa() >= kNeon).
#pragma once

#if !defined(__aarch64__)
#error "vec_math_neon.h is AArch64 code (include it from *_neon.cpp files only)"
#endif

#include <arm_neon.h>

#include "kernels/optimized/vec/vec_math_coefficients.h"

namespace torchedge {
namespace optimized {
namespace {

/// The functions as static members: the math operand of vec_loops.h's
/// ElementwiseTable.
struct NeonMath {
  using V = float32x4_t;

  /// Horner evaluation c[0] + c[1] v + ... + c[N-1] v^(N-1) with FMA.
  template <int N>
  static V polynomial(V v, const float (&c)[N]) {
    V r = vdupq_n_f32(c[N - 1]);
    for (int i = N - 2; i >= 0; --i) r = vfmaq_f32(vdupq_n_f32(c[i]), r, v);
    return r;
  }

  /// e^x: x = n ln2 + r (Cody-Waite), degree-7 Taylor polynomial of e^r,
  /// times 2^(n-1) * 2 built in the exponent bits (n in [-126, 128]).
  static V exp(V x) {
    const V lo = vdupq_n_f32(vec_math::kExpMin);
    const V clamped = vminq_f32(vdupq_n_f32(vec_math::kExpClampMax), vmaxq_f32(lo, x));
    const V n = vrndnq_f32(vmulq_f32(clamped, vdupq_n_f32(vec_math::kLog2e)));
    V r = vfmsq_f32(clamped, n, vdupq_n_f32(vec_math::kLn2Hi));
    r = vfmsq_f32(r, n, vdupq_n_f32(vec_math::kLn2Lo));
    const V p = polynomial(r, vec_math::kExpTaylor);
    const int32x4_t bits = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(126)), 23);
    const V y = vmulq_f32(vmulq_f32(p, vreinterpretq_f32_s32(bits)), vdupq_n_f32(2.0f));
    return vbslq_f32(vcltq_f32(x, lo), vdupq_n_f32(0.0f), y);
  }

  /// x with the sign bit of `sign_of`.
  static V copysign(V x, V sign_of) {
    return vbslq_f32(vdupq_n_u32(0x80000000u), sign_of, x);
  }

  static V tanh(V x) {
    const V a = vabsq_f32(x);
    const V small = vmulq_f32(x, polynomial(vmulq_f32(x, x), vec_math::kTanhSmall));
    const V one = vdupq_n_f32(1.0f);
    const V e = exp(vaddq_f32(a, a));
    const V large = vsubq_f32(one, vdivq_f32(vdupq_n_f32(2.0f), vaddq_f32(e, one)));
    const V y = vbslq_f32(vcltq_f32(a, vdupq_n_f32(vec_math::kTanhSmallMax)), small,
                          copysign(large, x));
    return vbslq_f32(vceqq_f32(x, x), y, x);  // NaN lanes: x
  }

  /// For t >= 1: erfc(t) = e^{-t^2} erfcx(t), erfcx a polynomial in 1/t;
  /// t^2 split into hi + lo so e^{-t^2} keeps its precision (see vec_math_avx2.h).
  static V erfc_large(V t) {
    const V tc = vminq_f32(vmaxq_f32(t, vdupq_n_f32(vec_math::kErfSmallMax)),
                           vdupq_n_f32(vec_math::kErfcxMax));
    const V one = vdupq_n_f32(1.0f);
    const V u = vdivq_f32(one, tc);
    const V hi = vmulq_f32(tc, tc);
    const V lo = vfmaq_f32(vnegq_f32(hi), tc, tc);  // tc*tc - hi, exactly
    const V e = vmulq_f32(exp(vnegq_f32(hi)), vsubq_f32(one, lo));  // e^-lo ~ 1 - lo
    return vmulq_f32(e, polynomial(u, vec_math::kErfcx));
  }

  /// Whether every lane of `mask` is set.
  static bool all(uint32x4_t mask) { return vminvq_u32(mask) != 0; }

  static V erf(V x) {
    const V t = vabsq_f32(x);
    const V small = vmulq_f32(x, polynomial(vmulq_f32(x, x), vec_math::kErfSmall));
    const uint32x4_t is_small = vcltq_f32(t, vdupq_n_f32(vec_math::kErfSmallMax));
    if (all(is_small)) return small;  // NaN lanes are not small
    const V large = copysign(vsubq_f32(vdupq_n_f32(1.0f), erfc_large(t)), x);
    return vbslq_f32(vceqq_f32(x, x), vbslq_f32(is_small, small, large), x);
  }

  /// x/2 (1 + erf(x / sqrt 2)).
  static V gelu_erf(V x) {
    const V z = vmulq_f32(x, vdupq_n_f32(vec_math::kSqrtHalf));
    const V one = vdupq_n_f32(1.0f);
    const V small = vfmaq_f32(one, z, polynomial(vmulq_f32(z, z), vec_math::kErfSmall));
    const V half_x = vmulq_f32(x, vdupq_n_f32(0.5f));
    const uint32x4_t is_small = vcltq_f32(vabsq_f32(z), vdupq_n_f32(vec_math::kErfSmallMax));
    if (all(is_small)) return vmulq_f32(half_x, small);
    const V c = erfc_large(vabsq_f32(z));
    const V large = vbslq_f32(vcltq_f32(z, vdupq_n_f32(0.0f)), c, vsubq_f32(vdupq_n_f32(2.0f), c));
    // +inf gives +inf and -inf gives -inf * 0 = NaN, as the portable formula.
    return vmulq_f32(half_x, vbslq_f32(is_small, small, large));
  }

  /// Only lanes strictly below zero become 0, so NaN and -0 pass through.
  static V relu(V x) { return vbslq_f32(vcltzq_f32(x), vdupq_n_f32(0.0f), x); }

  /// 1 / (1 + e^-x), as the portable kernel computes it.
  static V sigmoid(V x) {
    const V one = vdupq_n_f32(1.0f);
    return vdivq_f32(one, vaddq_f32(one, exp(vnegq_f32(x))));
  }

};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
