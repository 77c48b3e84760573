// torchedge/kernels/quantized/support/activation_quant.h
//
// Per-token int8 quantization of linear_8da4w's float activations, exactly
// as the eager reference (python/torchedge/quantization/int4_linear_ops.py,
// quantize_per_token_int8) computes it in float32:
//   lo = min(min(x), 0), hi = max(max(x), 0)
//   scale = max((hi - lo) / 255, float32 eps)
//   zp = clamp(-128 - round(lo / scale), -128, 127)
//   q  = clamp(round(x / scale) + zp, -128, 127)        (division, not 1/scale)
// so the integers the kernel multiplies are the reference's integers.
#pragma once

#include <cstdint>

namespace torchedge {
namespace quantized {

/// Quantizes x[0, k) (k >= 1) into q; writes the row's scale and zero
/// point, and the sum of q over every `group_size` block into group_sums
/// (k / group_size entries).
void quantize_row_int8_per_token(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* scale, int32_t* zero_point, int32_t* group_sums);

}  // namespace quantized
}  // namespace torchedge
