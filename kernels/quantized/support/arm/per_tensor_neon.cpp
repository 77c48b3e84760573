// quantize / dequantize per tensor on AArch64 NEON (support/per_tensor_simd.h):
// 16 elements per step, the scalar loops' float operations in their order
// (x * inv_scale, round half to even by frintn, + zero point, clamp; q -
// zero point, * scale; no FMA), so every input gives the same bits. NaN
// survives fmax / fmin and converts to 0, as the scalar to_quant's
// out-of-range value becomes 0 in 8 bits. Entered when best_arm_isa() >= kNeon.
#include <arm_neon.h>

#include "kernels/quantized/support/per_tensor_simd.h"

namespace torchedge {
namespace quantized {
namespace {

inline int32x4_t quantize4(const float* in, const QuantizeParams<float>& p) {
  const float32x4_t r = vaddq_f32(vrndnq_f32(vmulq_f32(vld1q_f32(in), vdupq_n_f32(p.inv_scale))),
                                  vdupq_n_f32(p.zero_point));
  return vcvtq_s32_f32(vminq_f32(vmaxq_f32(r, vdupq_n_f32(p.quant_min)), vdupq_n_f32(p.quant_max)));
}

// 8 values in [quant_min, quant_max] (inside Q's range) as int16.
inline int16x8_t narrow8(int32x4_t a, int32x4_t b) {
  return vcombine_s16(vmovn_s32(a), vmovn_s32(b));
}

inline float32x4_t dequantize4(int32x4_t q, float scale, float zero_point) {
  return vmulq_f32(vsubq_f32(vcvtq_f32_s32(q), vdupq_n_f32(zero_point)), vdupq_n_f32(scale));
}

}  // namespace

template <typename Q>
size_t quantize_per_tensor_neon(const float* in, Q* out, size_t count,
                                const QuantizeParams<float>& p) {
  const size_t whole = count - count % 16;
  for (size_t i = 0; i < whole; i += 16) {
    const int16x8_t lo = narrow8(quantize4(in + i, p), quantize4(in + i + 4, p));
    const int16x8_t hi = narrow8(quantize4(in + i + 8, p), quantize4(in + i + 12, p));
    const int8x16_t bytes = vcombine_s8(vmovn_s16(lo), vmovn_s16(hi));
    vst1q_u8(reinterpret_cast<uint8_t*>(out + i), vreinterpretq_u8_s8(bytes));
  }
  return whole;
}

namespace {

// The 16 bytes at `in` widened to 4 x int32.
inline void widen16(const int8_t* in, int32x4_t (&q)[4]) {
  const int8x16_t v = vld1q_s8(in);
  const int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_high_s8(v);
  q[0] = vmovl_s16(vget_low_s16(lo)), q[1] = vmovl_high_s16(lo);
  q[2] = vmovl_s16(vget_low_s16(hi)), q[3] = vmovl_high_s16(hi);
}
inline void widen16(const uint8_t* in, int32x4_t (&q)[4]) {
  const uint8x16_t v = vld1q_u8(in);
  const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_high_u8(v);
  q[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)));
  q[1] = vreinterpretq_s32_u32(vmovl_high_u16(lo));
  q[2] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)));
  q[3] = vreinterpretq_s32_u32(vmovl_high_u16(hi));
}

}  // namespace

template <typename Q>
size_t dequantize_per_tensor_neon(const Q* in, float* out, size_t count, float scale,
                                  float zero_point) {
  const size_t whole = count - count % 16;
  for (size_t i = 0; i < whole; i += 16) {
    int32x4_t q[4];
    widen16(in + i, q);
    for (int j = 0; j < 4; ++j) vst1q_f32(out + i + 4 * j, dequantize4(q[j], scale, zero_point));
  }
  return whole;
}

template size_t quantize_per_tensor_neon(const float*, int8_t*, size_t,
                                         const QuantizeParams<float>&);
template size_t quantize_per_tensor_neon(const float*, uint8_t*, size_t,
                                         const QuantizeParams<float>&);
template size_t dequantize_per_tensor_neon(const int8_t*, float*, size_t, float, float);
template size_t dequantize_per_tensor_neon(const uint8_t*, float*, size_t, float, float);

}  // namespace quantized
}  // namespace torchedge
