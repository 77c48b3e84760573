// torchedge/kernels/quantized/support/affine.h
//
// The element-level arithmetic of affine (de)quantization, written to give
// bit-identical results to eager's quantized_decomposed reference on x86
// CPUs. The facts it encodes (checked against torch 2.13):
//  - torch.round rounds half to even; round_half_even() does the same
//    without libm (it vectorizes), and only loses the sign of a zero result,
//    which no caller can observe after the integer conversion.
//  - eager multiplies by an inverse scale: per tensor inv = float(1.0 / scale)
//    computed in double (a Python float), per channel/token inv = 1 / scales
//    computed in the scales' dtype.
//  - torch.clamp propagates NaN, and the final .to(int dtype) of NaN or of a
//    value outside int32 goes through the CPU's truncating conversion, which
//    yields INT32_MIN, then narrows: NaN -> 0 for 8/16-bit dtypes and
//    INT32_MIN for int32 (and +inf clamped to 2147483647.0f -> INT32_MIN too,
//    as eager does). to_quant() reproduces that instead of invoking UB.
#pragma once

#include <cmath>
#include <cstdint>

namespace torchedge {
namespace quantized {

/// Round to nearest, ties to even (torch.round); NaN and |x| >= 2^23 (which
/// are already integers) pass through.
inline float round_half_even(float x) {
  constexpr float kTwo23 = 8388608.0f;
  if (!(std::fabs(x) < kTwo23)) return x;
  const float magic = x >= 0.0f ? kTwo23 : -kTwo23;
  return (x + magic) - magic;
}
inline double round_half_even(double x) {
  constexpr double kTwo52 = 4503599627370496.0;
  if (!(std::fabs(x) < kTwo52)) return x;
  const double magic = x >= 0.0 ? kTwo52 : -kTwo52;
  return (x + magic) - magic;
}

/// torch.clamp(x, lo, hi): NaN stays NaN.
template <typename C>
inline C clamp_nan(C x, C lo, C hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

/// x86's float/double -> int32 conversion (cvtt*2si), then two's-complement
/// narrowing to Q: what eager's .to(dtype) produces, including NaN/overflow.
template <typename Q, typename C>
inline Q to_quant(C v) {
  const bool in_range = v >= C(-2147483648.0) && v < C(2147483648.0);
  const int32_t i = in_range ? static_cast<int32_t>(v) : INT32_MIN;
  return static_cast<Q>(i);
}

/// x86's conversion to int64 (cvtt*2si 64-bit): NaN/overflow -> INT64_MIN.
template <typename C>
inline int64_t to_int64(C v) {
  const bool in_range = v >= C(-9223372036854775808.0) && v < C(9223372036854775808.0);
  return in_range ? static_cast<int64_t>(v) : INT64_MIN;
}

/// The parameters of one quantize run (per tensor, channel, token or group),
/// already in the compute type C, so inner loops see only arithmetic.
template <typename C>
struct QuantizeParams {
  C inv_scale;
  C zero_point;
  C quant_min;
  C quant_max;
};

/// round(x * inv) + zp, clamped (quantize_per_tensor / quantize_per_channel).
template <typename Q, typename C>
inline Q quantize_round_then_shift(C x, const QuantizeParams<C>& p) {
  const C r = round_half_even(static_cast<C>(x * p.inv_scale)) + p.zero_point;
  return to_quant<Q>(clamp_nan(r, p.quant_min, p.quant_max));
}

/// round(x * inv + zp), clamped (quantize_per_token: eager adds the zero
/// point before rounding there).
template <typename Q, typename C>
inline Q quantize_shift_then_round(C x, const QuantizeParams<C>& p) {
  const C r = round_half_even(static_cast<C>(static_cast<C>(x * p.inv_scale) + p.zero_point));
  return to_quant<Q>(clamp_nan(r, p.quant_min, p.quant_max));
}

}  // namespace quantized
}  // namespace torchedge
