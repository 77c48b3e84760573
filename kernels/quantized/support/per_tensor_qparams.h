// torchedge/kernels/quantized/support/per_tensor_qparams.h
//
// Per-tensor affine parameters from a tensor's min and max, as eager's
// determine_qparams (per_tensor_affine, quantized_decomposed::choose_qparams
// .tensor) computes them:
//   min_neg = min(amin, 0), max_pos = max(amax, 0)          (input dtype)
//   scale   = max((max_pos - min_neg) / (quant_max - quant_min), float32(eps))
//   zp      = clamp(quant_min - int32(round(min_neg / scale)), quant_min, quant_max)
// Each step is rounded to the dtype eager computes it in (input dtype for
// the first two, float32 after the max with the float32 eps tensor, int32
// for the zero point). Shared by choose_qparams.Tensor_out and
// linear_dynamic_int8.out, so both produce the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/minmax.h"

namespace torchedge {
namespace quantized {

/// The parameters from the data's min `lo` and max `hi` (NaN if the data
/// has one); T: the data's dtype (float, Half or BFloat16);
/// quant_min <= 0 <= quant_max (validated by the caller).
template <typename T>
void per_tensor_qparams_from_min_max(float lo, float hi, int64_t qmin, int64_t qmax, double eps,
                                     float* scale_out, int32_t* zero_point_out) {
  const float min_neg = min_nan(lo, 0.0f);
  const float max_pos = max_nan(hi, 0.0f);
  const float range = static_cast<float>(static_cast<T>(max_pos - min_neg));
  const float divided = static_cast<float>(static_cast<T>(range / static_cast<float>(qmax - qmin)));
  const float scale = max_nan(divided, static_cast<float>(eps));
  const int32_t rounded = to_quant<int32_t>(round_half_even(min_neg / scale));
  // int32 tensor arithmetic wraps; do it in uint32 to stay defined.
  int32_t zp = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(qmin)) -
                                    static_cast<uint32_t>(rounded));
  if (zp < qmin) zp = static_cast<int32_t>(qmin);
  if (zp > qmax) zp = static_cast<int32_t>(qmax);
  *scale_out = scale;
  *zero_point_out = zp;
}

/// The same from `count` >= 1 elements of `data`.
template <typename T>
void choose_per_tensor_qparams(const T* data, size_t count, int64_t qmin, int64_t qmax,
                               double eps, float* scale_out, int32_t* zero_point_out) {
  float lo = 0.0f, hi = 0.0f;
  row_min_max(data, count, &lo, &hi);
  per_tensor_qparams_from_min_max<T>(lo, hi, qmin, qmax, eps, scale_out, zero_point_out);
}

}  // namespace quantized
}  // namespace torchedge
