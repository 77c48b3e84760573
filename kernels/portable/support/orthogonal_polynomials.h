// torchedge/kernels/portable/support/orthogonal_polynomials.h
//
// The classical orthogonal polynomials of torch.special, evaluated in double
// by their three-term recurrences. As eager, the degree `n` is truncated to
// an integer; a negative (or NaN) degree gives 0. Every family is
//   p_0 = 1, p_1 = first(x), p_{k+1} = (a(k, x) p_k - b(k) p_{k-1}) / c(k).
#pragma once

#include <cmath>
#include <cstdint>

namespace torchedge {
namespace special {

enum class Polynomial {
  kChebyshevT, kChebyshevU, kChebyshevV, kChebyshevW,
  kHermiteH, kHermiteHe, kLaguerreL, kLegendreP,
};

/// p_n(x) of `family`.
inline double orthogonal_polynomial(Polynomial family, double x, double n_real) {
  if (!(n_real >= 0)) return 0;  // negative or NaN degree
  const int64_t n = n_real > 9e18 ? INT64_MAX : static_cast<int64_t>(n_real);
  if (n == 0) return 1;
  double previous = 1, current = 0;
  switch (family) {
    case Polynomial::kChebyshevT: case Polynomial::kHermiteHe: case Polynomial::kLegendreP:
      current = x; break;
    case Polynomial::kChebyshevU: case Polynomial::kHermiteH: current = 2 * x; break;
    case Polynomial::kChebyshevV: current = 2 * x - 1; break;
    case Polynomial::kChebyshevW: current = 2 * x + 1; break;
    case Polynomial::kLaguerreL: current = 1 - x; break;
  }
  for (int64_t k = 1; k < n; ++k) {
    const double kd = static_cast<double>(k);
    double next = 0;
    switch (family) {
      case Polynomial::kChebyshevT: case Polynomial::kChebyshevU:
      case Polynomial::kChebyshevV: case Polynomial::kChebyshevW:
        next = 2 * x * current - previous; break;
      case Polynomial::kHermiteH: next = 2 * x * current - 2 * kd * previous; break;
      case Polynomial::kHermiteHe: next = x * current - kd * previous; break;
      case Polynomial::kLaguerreL: next = ((2 * kd + 1 - x) * current - kd * previous) / (kd + 1); break;
      case Polynomial::kLegendreP: next = ((2 * kd + 1) * x * current - kd * previous) / (kd + 1); break;
    }
    previous = current;
    current = next;
    if (std::isnan(current)) break;
  }
  return current;
}

}  // namespace special
}  // namespace torchedge
