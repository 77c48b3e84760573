// torchedge/kernels/optimized/vec/vec_math_coefficients.h
//
// The numbers behind the vector math of every ISA (vec_math_avx2.h,
// vec_math_avx512.h): both evaluate the same algorithms with these
// constants, so their accuracy statements agree and a refit changes both.
// Plain constants, no intrinsics: safe to include from any file.
//
// The polynomial coefficients were fitted for this project by weighted
// least squares (Lawson iterations, float64) on Chebyshev nodes; exp uses
// the Taylor coefficients 1/k!. Each array is c[0] + c[1] v + c[2] v^2 ...
#pragma once

namespace torchedge {
namespace optimized {
namespace vec_math {

// ---- e^x: x = n ln2 + r, |r| <= ln2 / 2, e^r by a degree-7 polynomial ----

inline constexpr float kLog2e = 1.44269504088896341f;
/// ln2 split in a high part with trailing zero bits (n * kLn2Hi is exact
/// for the n that occur) and the rest.
inline constexpr float kLn2Hi = 0.693145751953125f;
inline constexpr float kLn2Lo = 1.428606765330187045e-06f;
/// log(FLT_MIN): inputs below it give 0.
inline constexpr float kExpMin = -87.3365f;
/// Upper clamp, above log(FLT_MAX) = 88.72 so that every larger x overflows
/// to +inf (and inf never meets inf - inf in the reduction).
inline constexpr float kExpClampMax = 89.0f;
/// Taylor coefficients 1/k! (truncation 5e-9 relative on |r| <= ln2 / 2).
inline constexpr float kExpTaylor[] = {1.0f,      1.0f,       0.5f,       1.0f / 6,
                                       1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};

// ---- 2^x for x <= 0 (flash attention's softmax, scores in base 2) --------

/// 2^r on |r| <= 1/2, degree 5 (relative error 2.3e-7 evaluated in float
/// with FMA; the fit's own 7e-8): 2^x = 2^round(x) * P(x - round(x)).
inline constexpr float kExp2Small[] = {1.0000000716546553f,   0.693146967063865f,
                                       0.24022119723934215f,  0.05550713274961466f,
                                       0.009675541330664257f, 0.001327647151929917f};
/// Inputs below it give 2^-126 = FLT_MIN (no subnormals): a probability
/// that small beside the row's maximum, 1, changes no float sum.
inline constexpr float kExp2Min = -126.0f;

// ---- tanh ----------------------------------------------------------------

/// Below this |x|, tanh(x) = x P(x^2); above, 1 - 2 / (e^{2|x|} + 1) has no
/// cancellation (the result is >= 0.55).
inline constexpr float kTanhSmallMax = 0.625f;
/// tanh(x) / x as a polynomial in x^2 on |x| <= 0.625 (fit error 4e-9).
inline constexpr float kTanhSmall[] = {0.9999999960911399f,   -0.33333260608353765f,
                                       0.13331128703087208f,  -0.05372113620987537f,
                                       0.020591162675271668f, -0.005660151118795592f};

// ---- erf, erfc -----------------------------------------------------------

/// Below this |t|, erf(t) = t P(t^2); from it on, erf(t) = 1 - erfc(t).
inline constexpr float kErfSmallMax = 1.0f;
/// erf(t) / t as a polynomial in t^2 on |t| <= 1 (fit error 1.2e-9).
inline constexpr float kErfSmall[] = {1.1283791657323463f,   -0.37612625839751335f,
                                      0.11283585270823482f,  -0.026853816070404962f,
                                      0.005188334502443048f, -0.0008010247661068143f,
                                      7.854026333088682e-05f};
/// erfcx(t) = erfc(t) e^{t^2} as a polynomial in 1/t, fitted on t in
/// [kErfSmallMax, kErfcxMax] (rel err 4e-7 in float); beyond kErfcxMax
/// e^{-t^2} underflows, so t is clamped there.
inline constexpr float kErfcxMax = 10.0f;
inline constexpr float kErfcx[] = {3.3485284512367124e-06f, 0.5641045584359897f,
                                   0.0006166023619998406f,  -0.280279350625391f,
                                   -0.05400029659795669f,   0.7827393112183951f,
                                   -1.2082967756912795f,    0.9534412391553545f,
                                   -0.40342680776942386f,   0.07268181378750056f};

// ---- GELU -----------------------------------------------------------------

/// 1 / sqrt 2, the exact GELU's scaling of x before erf.
inline constexpr float kSqrtHalf = 0.70710678118654752f;
/// The tanh GELU's sqrt(2 / pi) and cubic factor: tanh(kBeta (x + kCubic x^3)).
inline constexpr float kGeluTanhBeta = 0.7978845608028654f;
inline constexpr float kGeluTanhCubic = 0.044715f;

}  // namespace vec_math
}  // namespace optimized
}  // namespace torchedge
