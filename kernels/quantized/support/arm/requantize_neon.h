// torchedge/kernels/quantized/support/arm/requantize_neon.h
//
// requantize() of support/int8_gemm.h on 4 int32 sums of one output
// channel at a time, for the AArch64 int8 kernels: the same float
// operations in the same order (convert, * (in_scale * w_scale), + bias,
// * inv_out_scale, round half to even, + zero point, clamp), so every level
// agrees with the scalar path bit for bit. frintn rounds half to even like
// round_half_even(); fmax / fmin keep a NaN (from a NaN bias), which the
// conversion turns into 0 as to_quant's out-of-range value becomes 0 in
// int8. Include from support/arm/*.cpp only (anonymous namespace).
#pragma once

#include <arm_neon.h>

#include <cmath>
#include <cstdint>

namespace torchedge {
namespace quantized {
namespace {

struct ChannelRequant {
  float32x4_t scale, bias, inv, zero_point, lo, hi;
  bool has_bias;

  ChannelRequant(float in_scale, float w_scale, const float* bias_or_null, float inv_out_scale,
                 float out_zero_point, float quant_min, float quant_max)
      : scale(vdupq_n_f32(in_scale * w_scale)),
        bias(vdupq_n_f32(bias_or_null != nullptr ? *bias_or_null : 0.0f)),
        inv(vdupq_n_f32(inv_out_scale)),
        zero_point(vdupq_n_f32(out_zero_point)),
        lo(vdupq_n_f32(quant_min)),
        hi(vdupq_n_f32(quant_max)),
        has_bias(bias_or_null != nullptr) {}

  /// 4 sums -> 4 int32 in [quant_min, quant_max] (0 for NaN).
  int32x4_t operator()(int32x4_t acc) const {
    float32x4_t y = vmulq_f32(vcvtq_f32_s32(acc), scale);
    if (has_bias) y = vaddq_f32(y, bias);
    const float32x4_t r = vaddq_f32(vrndnq_f32(vmulq_f32(y, inv)), zero_point);
    return vcvtq_s32_f32(vminq_f32(vmaxq_f32(r, lo), hi));
  }
};

/// The integer form of the same formula, for the output constants shared
/// by every channel: y = float(acc) * scale (+ bias) as above, then
/// fcvtns(y * inv_out_scale) (round half to even, saturating at the int32
/// range), + zero point saturating in int16, saturating narrow to int8,
/// clamp to [quant_min, quant_max]. Equal to the float form whenever y is
/// not NaN: a rounded value below 2^24 in magnitude is exact either way,
/// and a larger one (or an infinity) clamps to the same end of the int8
/// range in both, as |zero point| <= 128 is far below the saturated values.
/// int_requant_exact() says when y cannot be NaN.
struct IntRequant {
  float32x4_t inv;
  int16x8_t zero_point;
  int8x16_t lo, hi;

  IntRequant(float inv_out_scale, float out_zero_point, float quant_min, float quant_max)
      : inv(vdupq_n_f32(inv_out_scale)),
        zero_point(vdupq_n_s16(static_cast<int16_t>(out_zero_point))),
        lo(vdupq_n_s8(static_cast<int8_t>(quant_min))),
        hi(vdupq_n_s8(static_cast<int8_t>(quant_max))) {}

  /// 16 sums (a[i]: lanes 4i..4i+3) with lane-wise scale and bias factors.
  template <bool kBias>
  int8x16_t operator()(const int32x4_t (&a)[4], const float32x4_t (&scale)[4],
                       const float32x4_t (&bias)[4]) const {
    int32x4_t q[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      float32x4_t y = vmulq_f32(vcvtq_f32_s32(a[i]), scale[i]);
      if constexpr (kBias) y = vaddq_f32(y, bias[i]);
      q[i] = vcvtnq_s32_f32(vmulq_f32(y, inv));
    }
    const int16x8_t h0 = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(q[0]), q[1]), zero_point);
    const int16x8_t h1 = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(q[2]), q[3]), zero_point);
    return vminq_s8(vmaxq_s8(vqmovn_high_s16(vqmovn_s16(h0), h1), lo), hi);
  }

  /// The same on the first kGroups of a[] (4 * kGroups sums of one output
  /// channel: one scale and bias for all lanes); the bytes past 4 * kGroups
  /// are unspecified.
  template <int kGroups, bool kBias>
  int8x16_t row(const int32x4_t (&a)[4], float32x4_t scale, float32x4_t bias) const {
    static_assert(kGroups >= 1 && kGroups <= 4, "1 to 4 groups of 4 sums");
    int32x4_t q[4];
#pragma GCC unroll 4
    for (int i = 0; i < kGroups; ++i) {
      float32x4_t y = vmulq_f32(vcvtq_f32_s32(a[i]), scale);
      if constexpr (kBias) y = vaddq_f32(y, bias);
      q[i] = vcvtnq_s32_f32(vmulq_f32(y, inv));
    }
    const int16x8_t h0 =
        vqaddq_s16(vqmovn_high_s32(vqmovn_s32(q[0]), q[kGroups > 1 ? 1 : 0]), zero_point);
    int8x16_t b;
    if constexpr (kGroups > 2) {
      const int16x8_t h1 =
          vqaddq_s16(vqmovn_high_s32(vqmovn_s32(q[2]), q[kGroups > 3 ? 3 : 2]), zero_point);
      b = vqmovn_high_s16(vqmovn_s16(h0), h1);
    } else {
      const int8x8_t b0 = vqmovn_s16(h0);
      b = vcombine_s8(b0, b0);
    }
    return vminq_s8(vmaxq_s8(b, lo), hi);
  }
};

/// ChannelRequant with a factor per lane (scale = in_scale * w_scale and
/// bias of each lane's channel, 0 without a bias): the float operations of
/// requantize() on 4 lanes of 4 different channels.
inline int32x4_t requantize_lanes(int32x4_t acc, float32x4_t scale, float32x4_t bias,
                                  bool has_bias, const ChannelRequant& consts) {
  float32x4_t y = vmulq_f32(vcvtq_f32_s32(acc), scale);
  if (has_bias) y = vaddq_f32(y, bias);
  const float32x4_t r = vaddq_f32(vrndnq_f32(vmulq_f32(y, consts.inv)), consts.zero_point);
  return vcvtq_s32_f32(vminq_f32(vmaxq_f32(r, consts.lo), consts.hi));
}

/// Whether y = float(acc) * scale + bias is never NaN for an int32 acc (so
/// IntRequant equals ChannelRequant): the bias is not NaN, and where it is
/// infinite the product cannot overflow to the opposite infinity.
inline bool int_requant_exact(float scale, const float* bias_or_null) {
  if (bias_or_null == nullptr) return true;
  const float b = *bias_or_null;
  if (std::isnan(b)) return false;
  return std::isfinite(b) || std::isfinite(scale * 2147483648.0f);
}

/// 16 requantized values (in range) narrowed to int8.
inline int8x16_t narrow_16(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d) {
  const int16x8_t lo = vcombine_s16(vmovn_s32(a), vmovn_s32(b));
  const int16x8_t hi = vcombine_s16(vmovn_s32(c), vmovn_s32(d));
  return vcombine_s8(vmovn_s16(lo), vmovn_s16(hi));
}

}  // namespace
}  // namespace quantized
}  // namespace torchedge
