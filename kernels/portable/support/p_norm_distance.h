// torchedge/kernels/portable/support/p_norm_distance.h
//
// The p-norm distance of two vectors, as _cdist_forward and _pdist_forward
// compute it: ||a - b||_p with p = 0 counting the differing elements,
// p = inf the largest |a_i - b_i|, p = 1 the sum, p = 2 sqrt of the sum of
// squares and any other p >= 0 (sum |a_i - b_i|^p)^(1/p). Accumulates in
// double (eager accumulates in the input dtype; the difference is far
// below the tolerance table's reduction bounds).
#pragma once

#include <cmath>
#include <cstdint>

namespace torchedge {

/// a and b hold `m` elements each, `stride_a` / `stride_b` elements apart.
template <typename T>
double p_norm_distance(const T* a, int64_t stride_a, const T* b, int64_t stride_b, int64_t m,
                       double p) {
  double acc = 0;
  for (int64_t i = 0; i < m; ++i) {
    const double d =
        std::fabs(static_cast<double>(a[i * stride_a]) - static_cast<double>(b[i * stride_b]));
    if (p == 0) {
      acc += d != 0 ? 1 : 0;
    } else if (std::isinf(p)) {
      acc = d > acc || std::isnan(d) ? d : acc;
    } else if (p == 1) {
      acc += d;
    } else if (p == 2) {
      acc += d * d;
    } else {
      acc += std::pow(d, p);
    }
  }
  if (p == 0 || p == 1 || std::isinf(p)) return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p);
}

}  // namespace torchedge
