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
#include <cstring>

#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace cortex_m {

/// The output parameters shared by every channel of one call.
struct OutputQuant {
  float inv_out_scale, out_zero_point, quant_min, quant_max;
  bool has_bias;
};

inline OutputQuant output_quant_of(const quantized::Int8GemmProblem& p) {
  return {p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max, p.bias != nullptr};
}

#if defined(__ARM_FEATURE_DSP) && defined(__ARM_FP) && (__ARM_FP & 4)
/// round_half_even() and to_quant<int8_t>() of a clamped value on the M33's
/// FPv5: VRINTN rounds to nearest, ties to even, as affine.h's magic-number
/// trick does (both leave NaN, infinities and integers alone; only a zero's
/// sign may differ, invisible after the conversion), and VCVT turns a value
/// already clamped to [-128, 127] into that integer and NaN into 0, which is
/// what to_quant's INT32_MIN narrows to. (Converting first and clamping
/// integers, with a NaN test, ran 3 % more instructions.)
inline float round_even(float x) {
  float r;
  asm("vrintn.f32 %0, %1" : "=t"(r) : "t"(x));
  return r;
}
inline int8_t to_int8(float clamped) {
  float r;
  asm("vcvt.s32.f32 %0, %1" : "=t"(r) : "t"(clamped));
  int32_t i;
  memcpy(&i, &r, sizeof(i));
  return static_cast<int8_t>(i);
}
#else
inline float round_even(float x) { return quantized::round_half_even(x); }
inline int8_t to_int8(float clamped) { return quantized::to_quant<int8_t>(clamped); }
#endif

/// requantize() for a channel whose factor `scale` = in_scale * w_scale[c]
/// (that float product, computed once) and `bias` (read only when present).
inline int8_t requantize_scaled(int32_t acc, float scale, float bias, const OutputQuant& o) {
  float y = static_cast<float>(acc) * scale;
  if (o.has_bias) y += bias;
  const float r = round_even(y * o.inv_out_scale) + o.out_zero_point;
  return to_int8(quantized::clamp_nan(r, o.quant_min, o.quant_max));
}

/// requantize_scaled for channel `c` of `p`.
class ChannelRequantizer {
 public:
  ChannelRequantizer(const quantized::Int8GemmProblem& p, int32_t c)
      : scale_(p.in_scale * p.w_scales[c]),
        bias_(p.bias != nullptr ? p.bias[c] : 0.0f),
        out_(output_quant_of(p)) {}

  int8_t operator()(int32_t acc) const { return requantize_scaled(acc, scale_, bias_, out_); }

 private:
  float scale_, bias_;
  OutputQuant out_;
};

}  // namespace cortex_m
}  // namespace torchedge
