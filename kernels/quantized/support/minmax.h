// torchedge/kernels/quantized/support/minmax.h
//
// NaN-propagating min/max as torch.amin/amax/aminmax/minimum/maximum
// compute them (a NaN anywhere makes the result NaN).
#pragma once

#include <cstddef>

namespace torchedge {
namespace quantized {

template <typename C>
inline C min_nan(C a, C b) {
  return (a != a) ? a : ((b != b) ? b : (b < a ? b : a));
}
template <typename C>
inline C max_nan(C a, C b) {
  return (a != a) ? a : ((b != b) ? b : (b > a ? b : a));
}

/// amin/amax of `count` >= 1 elements of `data`, widened to float.
template <typename T>
void row_min_max(const T* data, size_t count, float* min_out, float* max_out) {
  float lo = static_cast<float>(data[0]), hi = lo;
  for (size_t i = 1; i < count; ++i) {
    const float v = static_cast<float>(data[i]);
    lo = min_nan(lo, v);
    hi = max_nan(hi, v);
  }
  *min_out = lo;
  *max_out = hi;
}

}  // namespace quantized
}  // namespace torchedge
