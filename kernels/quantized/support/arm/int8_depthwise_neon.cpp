// int8_depthwise_neon (support/int8_depthwise.h): the int8 depthwise
// convolution on baseline AArch64 NEON, per (image, channel) plane.
//
// The plane is widened once into the worker's int16 buffer as x - zx with
// zero borders (pad_h / pad_w on each side), so every tap of every output
// pixel reads without bounds checks. Output rows go in blocks of 8 pixels:
// per tap one load of 8 int16 (stride 2: a de-interleaving load, its even
// lanes) and two widening multiply-adds into 8 int32 sums, exact (|x - zx|
// <= 255, |w| <= 128, taps <= kMaxInt8DepthwiseTaps); then requantize() on
// 4 lanes at a time (arm/requantize_neon.h). A row's last block computes 8
// pixels and stores all 8 (the next rows' first pixels, written later),
// except where that would run past the plane: then only the row's (the
// buffer has slack for its reads).
#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kBlock = 8;
// int16 elements readable past the padded plane: a last block's 8 pixels at
// stride 2 de-interleave 16 elements from up to 14 past the row's end.
constexpr int64_t kSlack = 32;

int64_t padded_w(const Int8DepthwiseProblem& p) { return p.width + 2 * p.pad_w; }
int64_t padded_h(const Int8DepthwiseProblem& p) { return p.height + 2 * p.pad_h; }

// Plane `plane` of the input as x - zx into buf (zero borders and slack).
// Rows go 8 elements at a time, the last 8 reaching past the row's end
// (into the next input row, and in buf over this row's right border and the
// next rows' start, which are written after): no scalar tail, no clearing
// of the whole plane. A read that would run past the plane goes through a
// buffer instead, so none runs past the input tensor.
void widen_plane(const Int8DepthwiseProblem& p, int64_t plane, int16_t* buf) {
  const int64_t wp = padded_w(p), hp = padded_h(p);
  std::memset(buf, 0, sizeof(int16_t) * static_cast<size_t>(p.pad_h * wp + p.pad_w));
  const int8_t* x = p.input + plane * p.height * p.width;
  const int16x8_t zx = vdupq_n_s16(static_cast<int16_t>(p.in_zero_point));
  for (int64_t r = 0; r < p.height; ++r) {
    const int8_t* src = x + r * p.width;
    int16_t* dst = buf + (r + p.pad_h) * wp + p.pad_w;
    for (int64_t i = 0; i < p.width; i += 8) {
      int8x8_t v;
      if (r * p.width + i + 8 <= p.height * p.width) {  // inside the plane
        v = vld1_s8(src + i);
      } else {
        int8_t tail[8] = {};
        std::memcpy(tail, src + i, static_cast<size_t>(p.width - i));
        v = vld1_s8(tail);
      }
      vst1q_s16(dst + i, vsubq_s16(vmovl_s8(v), zx));
    }
    // This row's right border and the next row's left one.
    std::memset(dst + p.width, 0, sizeof(int16_t) * static_cast<size_t>(2 * p.pad_w));
  }
  // The bottom border rows (after the last row's right border) and the slack.
  int16_t* end = buf + (p.height + p.pad_h) * wp + p.pad_w;
  std::memset(end, 0, sizeof(int16_t) * static_cast<size_t>(buf + hp * wp + kSlack - end));
}

// 8 sums of a 3x3 undilated filter, its weights in registers.
template <int kStrideW>
inline void sums_3x3(const int16_t* at, int64_t wp, const int16x8_t (&w)[9], int32x4_t& lo,
                     int32x4_t& hi) {
#pragma GCC unroll 3
  for (int kh = 0; kh < 3; ++kh) {
#pragma GCC unroll 3
    for (int kw = 0; kw < 3; ++kw) {
      const int16_t* tap = at + kh * wp + kw;
      const int16x8_t v = kStrideW == 1 ? vld1q_s16(tap) : vld2q_s16(tap).val[0];
      // smlal / smlal2 on the two halves in place (no moves of the high half).
      lo = vmlal_s16(lo, vget_low_s16(v), vget_low_s16(w[kh * 3 + kw]));
      hi = vmlal_high_s16(hi, v, w[kh * 3 + kw]);
    }
  }
}

// k3x3: the undilated 3x3 filter with its weights in registers (a
// compile-time choice: as a run-time flag in the block loop GCC kept the
// weights in memory and both paths' bookkeeping, ~3x the instructions).
template <int kStrideW, bool k3x3>
void plane_rows(const Int8DepthwiseProblem& p, int64_t c, const int16_t* buf, int8_t* out) {
  const int64_t wp = padded_w(p);
  const int8_t* w = p.weight + c * p.taps();
  const ChannelRequant rq(p.in_scale, p.w_scales[c], p.bias != nullptr ? p.bias + c : nullptr,
                          p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
  int16x8_t w3[9];
  if constexpr (k3x3) {
    for (int t = 0; t < 9; ++t) w3[t] = vdupq_n_s16(w[t]);
  }
  for (int64_t oh = 0; oh < p.out_height; ++oh) {
    const int16_t* rows = buf + oh * p.stride_h * wp;
    int8_t* dst = out + oh * p.out_width;
    for (int64_t ow = 0; ow < p.out_width; ow += kBlock) {
      int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
      const int16_t* at = rows + ow * kStrideW;
      if constexpr (k3x3) sums_3x3<kStrideW>(at, wp, w3, lo, hi);
      for (int64_t kh = 0; kh < (k3x3 ? 0 : p.kernel_h); ++kh) {
        const int16_t* row = at + kh * p.dilation_h * wp;
        for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
          const int16_t* tap = row + kw * p.dilation_w;
          const int16x8_t v = kStrideW == 1 ? vld1q_s16(tap) : vld2q_s16(tap).val[0];
          const int16x4_t wv = vdup_n_s16(w[kh * p.kernel_w + kw]);
          lo = vmlal_s16(lo, vget_low_s16(v), wv);
          hi = vmlal_s16(hi, vget_high_s16(v), wv);
        }
      }
      const int16x8_t q16 = vcombine_s16(vmovn_s32(rq(lo)), vmovn_s32(rq(hi)));
      const int8x8_t q8 = vmovn_s16(q16);
      const int64_t count = std::min(kBlock, p.out_width - ow);
      // A row's last block may write past its end into the next rows, which
      // are written after it, but not past the plane.
      if (count == kBlock || (oh * p.out_width + ow + kBlock <= p.out_height * p.out_width)) {
        vst1_s8(dst + ow, q8);
      } else {
        int8_t tmp[kBlock];
        vst1_s8(tmp, q8);
        std::memcpy(dst + ow, tmp, static_cast<size_t>(count));
      }
    }
  }
}

}  // namespace

bool int8_depthwise_neon_applies(const Int8DepthwiseProblem& p) {
  return p.stride_w == 1 || p.stride_w == 2;
}

size_t int8_depthwise_neon_worker_bytes(const Int8DepthwiseProblem& p) {
  const size_t bytes = sizeof(int16_t) * static_cast<size_t>(padded_h(p) * padded_w(p) + kSlack);
  return (bytes + 63) & ~size_t{63};
}

void int8_depthwise_neon(const Int8DepthwiseProblem& p, int64_t plane_begin, int64_t plane_end,
                         void* scratch) {
  int16_t* buf = static_cast<int16_t*>(scratch);
  const int64_t plane_out = p.out_height * p.out_width;
  const bool is_3x3 = p.kernel_h == 3 && p.kernel_w == 3 && p.dilation_h == 1 && p.dilation_w == 1;
  for (int64_t plane = plane_begin; plane < plane_end; ++plane) {
    widen_plane(p, plane, buf);
    int8_t* out = p.out + plane * plane_out;
    const int64_t c = plane % p.channels;
    if (is_3x3) {
      p.stride_w == 1 ? plane_rows<1, true>(p, c, buf, out) : plane_rows<2, true>(p, c, buf, out);
    } else {
      p.stride_w == 1 ? plane_rows<1, false>(p, c, buf, out) : plane_rows<2, false>(p, c, buf, out);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
