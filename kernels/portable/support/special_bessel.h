// torchedge/kernels/portable/support/special_bessel.h
//
// Bessel and Airy functions in double precision for the portable
// special-function kernels (op_special_functions.cpp): power series where
// they converge without cancellation (long double where some is left),
// Hankel asymptotic expansions for large arguments, and the integral
// K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt by the trapezoid rule
// (exponentially convergent for this analytic, even integrand). Edge cases
// (negative arguments of Y and K, zeros, infinities) follow eager PyTorch's
// CPU kernels; tests/ops/op_table_special.py compares value by value.
#pragma once

namespace torchedge {
namespace special {

/// Modified Bessel function of the first kind I_n(x), n in {0, 1};
/// `scaled` gives exp(-|x|) I_n(x).
double bessel_i(int n, double x, bool scaled);

/// Modified Bessel function of the second kind K_nu(x) for nu >= 0;
/// `scaled` gives exp(x) K_nu(x). NaN for x < 0, inf at 0.
double bessel_k(double nu, double x, bool scaled);

/// Bessel functions of the first and second kind, n in {0, 1}. Y is NaN for
/// x < 0 and -inf at 0.
double bessel_j(int n, double x);
double bessel_y(int n, double x);

/// sin(x) / x, 1 at 0.
double spherical_bessel_j0(double x);

/// The Airy function Ai(x) (NaN at +-inf, as eager).
double airy_ai(double x);

}  // namespace special
}  // namespace torchedge
