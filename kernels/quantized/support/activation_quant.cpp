#include "kernels/quantized/support/activation_quant.h"

#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/minmax.h"

namespace torchedge {
namespace quantized {

void quantize_row_int8_per_token(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* scale_out, int32_t* zero_point_out, int32_t* group_sums) {
  constexpr float kEps = 1.1920928955078125e-07f;  // torch.finfo(torch.float32).eps
  float lo = 0.0f, hi = 0.0f;
  row_min_max(x, static_cast<size_t>(k), &lo, &hi);
  lo = min_nan(lo, 0.0f);
  hi = max_nan(hi, 0.0f);
  const float scale = max_nan((hi - lo) / 255.0f, kEps);
  const float zp = clamp_nan(-128.0f - round_half_even(lo / scale), -128.0f, 127.0f);
  for (int64_t i = 0; i < k; ++i) {
    q[i] = to_quant<int8_t>(clamp_nan(round_half_even(x[i] / scale) + zp, -128.0f, 127.0f));
  }
  for (int64_t g0 = 0, gi = 0; g0 < k; g0 += group_size, ++gi) {
    int32_t sum = 0;
    for (int64_t i = g0; i < g0 + group_size; ++i) sum += q[i];
    group_sums[gi] = sum;
  }
  *scale_out = scale;
  // NaN input: scale is NaN (so is the output, as in eager); keep the zero
  // point in range so the integer corrections cannot overflow.
  const int32_t zp_int = to_quant<int32_t>(zp);
  *zero_point_out = zp_int < -128 ? -128 : (zp_int > 127 ? 127 : zp_int);
}

}  // namespace quantized
}  // namespace torchedge
