// torchedge/kernels/portable/support/special_gamma.h
//
// The gamma and error-function families in double precision, for the
// portable special-function kernels (op_special_functions.cpp). Each takes
// and returns double; the kernels round to the output's dtype. Accuracy is
// ~1e-12 relative or better over the ranges float32 inputs reach, and the
// edge cases (poles, domain errors, infinities) follow eager PyTorch's CPU
// kernels, which tests/ops/op_table_special.py checks value by value.
#pragma once

namespace torchedge {
namespace special {

/// psi(x) = d/dx log gamma(x). -inf at +0, +inf at -0, NaN at the negative
/// integers and -inf.
double digamma(double x);

/// The Hurwitz zeta function sum_{k>=0} (q + k)^-s (eager's special.zeta):
/// inf at s == 1 or at q a non-positive integer, NaN for s < 1 and for
/// q < 0 with s not an integer.
double hurwitz_zeta(double s, double q);

/// The n-th derivative of digamma (n >= 0): digamma for n == 0, else
/// (-1)^(n+1) n! zeta(n + 1, x). NaN for n < 0.
double polygamma(long long n, double x);

/// Regularized lower / upper incomplete gamma P(a, x) and Q(a, x).
double igamma(double a, double x);
double igammac(double a, double x);

/// The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside).
double erfinv(double y);

/// The inverse of the standard normal CDF on [0, 1] (+-inf at the ends).
double ndtri(double p);

/// exp(x^2) erfc(x) without overflow or underflow where the result fits.
double erfcx(double x);

/// log of the standard normal CDF, accurate in both tails.
double log_ndtr(double x);

}  // namespace special
}  // namespace torchedge
