// Series, continued fractions and Newton steps in double; see the header
// for the contract. Constants are mathematical (Bernoulli numbers, pi).
#include "kernels/portable/support/special_gamma.h"

#include <cmath>
#include <limits>

namespace torchedge {
namespace special {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 1e-17;

bool is_integer(double x) { return std::isfinite(x) && x == std::floor(x); }

// psi(x) for x > 0: the recurrence up to x >= 10, then the asymptotic series
// log y - 1/(2y) - sum B_2k / (2k y^2k).
double digamma_positive(double x) {
  double shift = 0;
  while (x < 10) {
    shift += 1 / x;
    x += 1;
  }
  const double inv2 = 1 / (x * x);
  const double tail =
      inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
  return std::log(x) - 0.5 / x - tail - shift;
}

// B_2j / (2j)! for j = 1..8 (Euler-Maclaurin remainder of the zeta sum).
constexpr double kBernoulliOverFactorial[] = {
    1.0 / 6 / 2,
    -1.0 / 30 / 24,
    1.0 / 42 / 720,
    -1.0 / 30 / 40320,
    5.0 / 66 / 3628800,
    -691.0 / 2730 / 479001600,
    7.0 / 6 / 87178291200.0,
    -3617.0 / 510 / 20922789888000.0,
};

// P(a, x) by its power series (x < a + 1).
double lower_series(double a, double x) {
  double term = 1 / a, sum = term;
  for (int n = 1; n < 100000 && std::fabs(term) > std::fabs(sum) * kEps; ++n) {
    term *= x / (a + n);
    sum += term;
  }
  return sum * std::exp(a * std::log(x) - x - std::lgamma(a));
}

// Q(a, x) by its continued fraction, modified Lentz (x >= a + 1).
double upper_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return std::exp(a * std::log(x) - x - std::lgamma(a)) * h;
}

// Eager's edge cases of igamma; returns true and sets `p` when one applies.
bool igamma_edge(double a, double x, double* p) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) {
    *p = kNaN;
  } else if (a == 0) {
    *p = x > 0 ? 1 : kNaN;
  } else if (x == 0) {
    *p = 0;
  } else if (std::isinf(a)) {
    *p = std::isinf(x) ? kNaN : 0;
  } else if (std::isinf(x)) {
    *p = 1;
  } else {
    return false;
  }
  return true;
}

// erfc^-1(q) for q in (0, 1]: Newton steps on log erfc, which converge from
// a rough start in both the centre and the far tail.
double erfcinv_upper(double q) {
  const double y = 1 - q;
  double x;
  if (q > 0.01) {  // Winitzki's closed-form approximation of erfinv(y)
    const double a = 0.147, l = std::log((1 - y) * (1 + y)), t = 2 / (kPi * a) + l / 2;
    x = std::sqrt(std::sqrt(t * t - l / a) - t);
  } else {
    x = std::sqrt(-std::log(q));
  }
  for (int i = 0; i < 8; ++i) {
    const double e = std::erfc(x);
    const double step = (std::log(e) - std::log(q)) / (-2 / std::sqrt(kPi) * std::exp(-x * x) / e);
    x -= step;
    if (std::fabs(step) <= 1e-16 * std::fabs(x)) break;
  }
  return x;
}

}  // namespace

double digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == kInf) return kInf;
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  if (x < 0) {
    if (is_integer(x)) return kNaN;
    return digamma_positive(1 - x) - kPi / std::tan(kPi * x);
  }
  return digamma_positive(x);
}

double hurwitz_zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (!is_integer(s)) return kNaN;
  }
  double sum = 0;
  double a = q;
  for (int k = 0; k < 100000 && a < 10; ++k, a += 1) sum += std::pow(a, -s);
  // Euler-Maclaurin from a = q + N >= 10 on.
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * std::pow(a, -s);
  double rising = s, power = std::pow(a, -s - 1);
  for (int j = 0; j < 8; ++j) {
    const double term = kBernoulliOverFactorial[j] * rising * power;
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * kEps) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power /= a * a;
  }
  return sum;
}

double polygamma(long long n, double x) {
  if (n < 0) return kNaN;
  if (n == 0) return digamma(x);
  double factorial = 1;
  for (long long k = 2; k <= n; ++k) factorial *= static_cast<double>(k);
  const double sign = (n % 2 == 1) ? 1 : -1;  // (-1)^(n+1)
  return sign * factorial * hurwitz_zeta(static_cast<double>(n + 1), x);
}

double igamma(double a, double x) {
  double p;
  if (igamma_edge(a, x, &p)) return p;
  return x < a + 1 ? lower_series(a, x) : 1 - upper_fraction(a, x);
}

double igammac(double a, double x) {
  double p;
  if (igamma_edge(a, x, &p)) return std::isnan(p) ? p : 1 - p;
  return x < a + 1 ? 1 - lower_series(a, x) : upper_fraction(a, x);
}

double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  if (std::fabs(y) >= 0.5) return std::copysign(erfcinv_upper(1 - std::fabs(y)), y);
  if (y == 0) return y;
  // Centre: Newton on erf from the series' first terms.
  double x = 0.5 * std::sqrt(kPi) * y * (1 + kPi / 12 * y * y);
  for (int i = 0; i < 6; ++i) {
    const double step = (std::erf(x) - y) / (2 / std::sqrt(kPi) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
  }
  return x;
}

double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  // ndtri(p) = -sqrt(2) erfcinv(2p); erfcinv(q) = -erfcinv(2 - q).
  const double q = 2 * p;
  return q <= 1 ? -std::sqrt(2.0) * erfcinv_upper(q) : std::sqrt(2.0) * erfcinv_upper(2 - q);
}

double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 5) {
    if (x < -26.7) return kInf;
    return std::exp(x * x) * std::erfc(x);
  }
  if (x > 1e8) return 1 / (std::sqrt(kPi) * x);
  // erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))).
  double f = x;
  for (int k = 60; k >= 1; --k) f = x + 0.5 * k / f;
  return 1 / (std::sqrt(kPi) * f);
}

double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  const double t = x / std::sqrt(2.0);
  if (x > 0) return std::log1p(-0.5 * std::erfc(t));
  if (x > -5) return std::log(0.5 * std::erfc(-t));
  return std::log(0.5 * erfcx(-t)) - t * t;
}

}  // namespace special
}  // namespace torchedge
