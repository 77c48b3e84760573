// See the header for the contract and the methods.
#include "kernels/portable/support/special_bessel.h"

#include <cmath>
#include <limits>

namespace torchedge {
namespace special {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// sum_k (sign z^2/4)^k / (k! (k+n)!) * (z/2)^n: I_n (sign +1) and J_n (-1).
long double bessel_series(int n, long double z, int sign) {
  const long double q = sign * z * z / 4;
  long double term = 1;
  for (int k = 1; k <= n; ++k) term *= z / 2 / k;
  long double sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (k * static_cast<long double>(k + n));
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * 1e-20L) break;
  }
  return sum;
}

// Hankel's expansion coefficients a_k(n) / z^k, summed with the sign
// pattern `alternate` (I_n: (-1)^k), or split into P and Q (J_n, Y_n).
void hankel_pq(int n, double z, double* p, double* q) {
  const double mu = 4.0 * n * n;
  double term = 1;
  *p = 1;
  *q = 0;
  double previous = kInf;
  for (int k = 1; k < 200; ++k) {
    term *= (mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * z);
    if (std::fabs(term) > previous) break;  // asymptotic: stop at the smallest term
    previous = std::fabs(term);
    const int sign = ((k / 2) % 2 == 0) ? 1 : -1;  // k = 1,2: +,-; 3,4: -,+ ...
    if (k % 2 == 1) {
      *q += (((k - 1) / 2) % 2 == 0 ? 1 : -1) * term;
    } else {
      *p += sign * term;
    }
    if (std::fabs(term) < 1e-17) break;
  }
}

// exp(-z) I_n(z) for large z > 0: e^0 / sqrt(2 pi z) sum (-1)^k a_k(n) / z^k.
double scaled_i_asymptotic(int n, double z) {
  const double mu = 4.0 * n * n;
  double term = 1, sum = 1, previous = kInf;
  for (int k = 1; k < 200; ++k) {
    term *= -(mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * z);
    if (std::fabs(term) > previous || std::fabs(term) < 1e-17) break;
    previous = std::fabs(term);
    sum += term;
  }
  return sum / std::sqrt(2 * kPi * z);
}

// Y_n(z), n in {0, 1}, z > 0, by the series of A&S 9.1.11.
long double bessel_y_series(int n, long double z) {
  const long double q = -z * z / 4;
  long double psi_a = -kEulerGamma, psi_b = -kEulerGamma;  // psi(k + 1), psi(n + k + 1)
  for (int k = 1; k <= n; ++k) psi_b += 1.0L / k;
  long double term = 1;  // (q)^k / (k! (n + k)!)
  for (int k = 1; k <= n; ++k) term /= k;
  long double sum = (psi_a + psi_b) * term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (k * static_cast<long double>(n + k));
    psi_a += 1.0L / k;
    psi_b += 1.0L / (n + k);
    const long double add = (psi_a + psi_b) * term;
    sum += add;
    if (std::fabs(add) <= std::fabs(sum) * 1e-20L && k > 2) break;
  }
  const long double half = z / 2;
  long double result = 2 / kPi * std::log(half) * bessel_series(n, z, -1) -
                       (n == 1 ? half : 1.0L) * sum / kPi;
  if (n == 1) result -= 1 / (kPi * half);
  return result;
}

}  // namespace

double bessel_i(int n, double x, bool scaled) {
  if (std::isnan(x)) return x;
  const double z = std::fabs(x);
  const double sign = (n == 1 && x < 0) ? -1 : 1;
  double value;
  if (z <= 20) {
    value = static_cast<double>(bessel_series(n, z, 1));
    if (scaled) value *= std::exp(-z);
  } else {
    value = scaled_i_asymptotic(n, z);
    if (!scaled) value *= std::exp(z);
  }
  return sign * value;
}

double bessel_k(double nu, double x, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  // int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, scaled by exp(x): a step
  // that resolves the peak's width 1/sqrt(x), summed until the integrand
  // is below double's range.
  const double h = std::fmin(0.2, 0.5 / std::sqrt(x));
  double sum = 0.5;
  for (int k = 1; k < 100000; ++k) {
    const double t = k * h;
    const double s = std::sinh(t / 2);
    const double exponent = -x * 2 * s * s;  // -x (cosh t - 1), without cancellation
    if (exponent + nu * t < -745) break;
    sum += std::exp(exponent) * std::cosh(nu * t);
  }
  const double scaled_value = h * sum;
  return scaled ? scaled_value : scaled_value * std::exp(-x);
}

double bessel_j(int n, double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNaN;
  const double z = std::fabs(x);
  const double sign = (n == 1 && x < 0) ? -1 : 1;
  if (z < 12) return sign * static_cast<double>(bessel_series(n, z, -1));
  double p, q;
  hankel_pq(n, z, &p, &q);
  const double chi = z - (0.5 * n + 0.25) * kPi;
  return sign * std::sqrt(2 / (kPi * z)) * (p * std::cos(chi) - q * std::sin(chi));
}

double bessel_y(int n, double x) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  if (x == 0) return -kInf;
  if (x < 12) return static_cast<double>(bessel_y_series(n, x));
  double p, q;
  hankel_pq(n, x, &p, &q);
  const double chi = x - (0.5 * n + 0.25) * kPi;
  return std::sqrt(2 / (kPi * x)) * (p * std::sin(chi) + q * std::cos(chi));
}

double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::fabs(x) < 1e-4) return 1 - x * x / 6;
  return std::sin(x) / x;
}

double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  if (x > 2) {  // Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi, zeta = 2/3 x^1.5
    const double zeta = 2.0 / 3 * x * std::sqrt(x);
    return std::sqrt(x / 3) / kPi * bessel_k(1.0 / 3, zeta, true) * std::exp(-zeta);
  }
  if (x >= -8) {  // Maclaurin: Ai(0) f(x) + Ai'(0) g(x)
    const long double c1 = 0.355028053887817239260L, c2 = 0.258819403792806798405L;
    const long double x3 = static_cast<long double>(x) * x * x;
    long double f = 1, g = x, tf = 1, tg = x;
    for (int k = 1; k < 200; ++k) {
      tf *= x3 / ((3 * k - 1) * (3.0L * k));
      tg *= x3 / ((3.0L * k) * (3 * k + 1));
      f += tf;
      g += tg;
      if (std::fabs(tf) + std::fabs(tg) < 1e-22L * (std::fabs(f) + std::fabs(g))) break;
    }
    return static_cast<double>(c1 * f - c2 * g);
  }
  // x < -8: Ai(-z) = (sin(zeta + pi/4) P - cos(zeta + pi/4) Q) / (sqrt(pi) z^1/4),
  // u_k = u_{k-1} (6k-1)(6k-3)(6k-5) / (216 k (2k-1)).
  const double z = -x, zeta = 2.0 / 3 * z * std::sqrt(z);
  double u = 1, p = 1, q = 0, previous = kInf;
  for (int k = 1; k < 100; ++k) {
    u *= (6.0 * k - 1) * (6.0 * k - 3) * (6.0 * k - 5) / (216.0 * k * (2 * k - 1));
    const double term = u / std::pow(zeta, k);
    if (term > previous || term < 1e-17) break;
    previous = term;
    const double sign = ((k / 2) % 2 == 0) ? 1 : -1;
    if (k % 2 == 1) {
      q += (((k - 1) / 2) % 2 == 0 ? 1 : -1) * term;
    } else {
      p += sign * term;
    }
  }
  const double angle = zeta + kPi / 4;
  return (std::sin(angle) * p - std::cos(angle) * q) / (std::sqrt(kPi) * std::pow(z, 0.25));
}

}  // namespace special
}  // namespace torchedge
