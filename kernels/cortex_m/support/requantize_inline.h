// torchedge/kernels/cortex_m/support/requantize_inline.h
//
// kernels/quantized's requantize() (support/int8_gemm.cpp) with its
// per-channel factor hoisted and inlined into the Cortex-M loops: the
// same float operations in the same order with the same affine.h helpers,
// so the same int8 for every int32 sum:
//   y = float(acc) * (in_scale * w_scale[c]); y += bias[c] (when present)
//   out = to_quant(clamp_nan(round_half_even(y * inv_out_scale) + out_zp, qmin, qmax))
// (The out-of-line call cost the DS-CNN more instructions than its
// depthwise products.)
#pragma once

#include <cstdint>

#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace cortex_m {

class ChannelRequantizer {
 public:
  /// Channel `c` of `p` (its w_scales, bias and output parameters).
  ChannelRequantizer(const quantized::Int8GemmProblem& p, int32_t c)
      : scale_(p.in_scale * p.w_scales[c]),
        bias_(p.bias != nullptr ? p.bias[c] : 0.0f),
        has_bias_(p.bias != nullptr),
        inv_out_scale_(p.inv_out_scale),
        out_zero_point_(p.out_zero_point),
        quant_min_(p.quant_min),
        quant_max_(p.quant_max) {}

  int8_t operator()(int32_t acc) const {
    float y = static_cast<float>(acc) * scale_;
    if (has_bias_) y += bias_;
    const float r = quantized::round_half_even(y * inv_out_scale_) + out_zero_point_;
    return quantized::to_quant<int8_t>(quantized::clamp_nan(r, quant_min_, quant_max_));
  }

 private:
  float scale_, bias_;
  bool has_bias_;
  float inv_out_scale_, out_zero_point_, quant_min_, quant_max_;
};

}  // namespace cortex_m
}  // namespace torchedge
