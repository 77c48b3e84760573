// torchedge/kernels/portable/support/gelu.h
//
// The GELU of one value as aten::gelu computes it, for every scalar loop that
// applies it (the portable gelu kernel, the fused convolution and linear
// kernels' epilogues, the optimized library's scalar vector table and SGEMM
// micro-kernels): one formula, so those paths agree bit for bit.
#pragma once

#include <cmath>

namespace torchedge {
namespace native {

/// approximate="none": x/2 (1 + erf(x / sqrt 2)).
template <typename C>
inline C gelu_exact(C x) {
  return x * C(0.5) * (C(1) + std::erf(x * C(M_SQRT1_2)));
}

/// approximate="tanh": x/2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
template <typename C>
inline C gelu_tanh(C x) {
  const C beta = C(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
  const C kappa = C(0.044715);
  const C inner = beta * (x + kappa * x * x * x);
  return C(0.5) * x * (C(1) + std::tanh(inner));
}

}  // namespace native
}  // namespace torchedge
