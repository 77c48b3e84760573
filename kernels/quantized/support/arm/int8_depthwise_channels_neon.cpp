// int8_depthwise_channels_neon (support/int8_depthwise.h): the int8
// depthwise convolution on baseline AArch64 NEON in channel blocks of 16,
// for maps where the per-plane loops (int8_depthwise_neon.cpp) spend more
// on widening, row ends and per-plane set-up than on the taps (MobileNetV2's
// 7x7 and 14x14 layers: ~20 instructions per output there). Per unit (one
// image, a band of 16 channels):
//  1. factors: the band's weights as int16 [taps][16] (channels past C
//     are 0), in_scale * w_scale and bias per lane, and whether every
//     channel of the band allows the integer epilogue (int_requant_exact).
//  2. transpose in: the band's 16 planes, 16 flat input pixels at a time
//     (plane rows are contiguous, so any width takes whole 16-byte loads;
//     the last chunk overlaps the one before), transposed 16 x 16 bytes (st4
//     of bytes, then of words) and
//     widened to int16 x - zx into [H + 2 pad_h][W + 2 pad_w][16], two
//     vectors per pixel; the padding is zeroed (it acts as x == zx).
//  3. taps: per output pixel, per tap one pair of loads and four widening
//     multiply-adds (smlal / smlal2) into 16 exact int32 sums; an undilated
//     3x3 filter keeps its 18 weight vectors in registers and addresses its
//     taps as immediate offsets (tile_3x3, an asm statement).
//  4. epilogue: IntRequant (arm/requantize_neon.h) on the 16 lanes with
//     per-lane factors, or requantize()'s float operations where a channel
//     of the band needs them; 16 output pixels' bytes go to a 16 x 16 tile,
//     transposed back (ld4 of words, then of bytes) and stored as 16 bytes
//     per channel plane (a plane's last, partial tile takes the previous
//     tile's last pixels along and is stored as the plane's last 16; a plane
//     under 16 pixels goes through a buffer).
// Bit for bit the scalar path's values.
#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/arm/int8_depthwise_band_neon.h"
#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace quantized {
namespace {

size_t pixel_bytes(const Int8DepthwiseProblem& p) {
  return round_up_64(static_cast<size_t>(padded_h(p) * padded_w(p) * kBand) * sizeof(int16_t));
}

// The worker's scratch: padded pixels, weights, tap offsets, scale and
// bias, the output tile.
struct Workspace {
  int16_t* pixels;
  int16_t* weights;      // [taps][16]
  int64_t* tap_offsets;  // [taps], int16 units from a pixel's first input
  float* scale;          // [16]
  float* bias;           // [16]
  int8_t* tile;          // [16 pixels][16 channels]
  int64_t taps;
};

size_t weight_bytes(const Int8DepthwiseProblem& p) {
  return round_up_64(static_cast<size_t>(p.taps() * kBand) * sizeof(int16_t));
}
size_t offset_bytes(const Int8DepthwiseProblem& p) {
  return round_up_64(static_cast<size_t>(p.taps()) * sizeof(int64_t));
}
constexpr size_t kParamBytes = 2 * kBand * sizeof(float);
constexpr size_t kTileBytes = kTile * kBand;

Workspace workspace_of(const Int8DepthwiseProblem& p, void* scratch) {
  char* at = static_cast<char*>(scratch);
  Workspace w;
  w.pixels = reinterpret_cast<int16_t*>(at);
  at += pixel_bytes(p);
  w.weights = reinterpret_cast<int16_t*>(at);
  at += weight_bytes(p);
  w.tap_offsets = reinterpret_cast<int64_t*>(at);
  at += offset_bytes(p);
  w.scale = reinterpret_cast<float*>(at);
  w.bias = w.scale + kBand;
  at += kParamBytes;
  w.tile = reinterpret_cast<int8_t*>(at);
  w.taps = p.taps();
  return w;
}

// Step 1. Returns whether every channel of the band allows IntRequant.
bool band_factors(const Int8DepthwiseProblem& p, int64_t c0, int64_t cn, const Workspace& w) {
  const int64_t taps = p.taps();
  bool exact = true;
  for (int64_t c = 0; c < kBand; ++c) {
    const bool real = c < cn;
    for (int64_t t = 0; t < taps; ++t) {
      w.weights[t * kBand + c] = real ? p.weight[(c0 + c) * taps + t] : 0;
    }
    w.scale[c] = real ? p.in_scale * p.w_scales[c0 + c] : 0.0f;
    w.bias[c] = real && p.bias != nullptr ? p.bias[c0 + c] : 0.0f;
    if (real) {
      exact = exact && int_requant_exact(w.scale[c], p.bias != nullptr ? p.bias + c0 + c : nullptr);
    }
  }
  const int64_t wp = padded_w(p);
  for (int64_t kh = 0, t = 0; kh < p.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < p.kernel_w; ++kw, ++t) {
      w.tap_offsets[t] = (kh * p.dilation_h * wp + kw * p.dilation_w) * kBand;
    }
  }
  return exact;
}

// Step 2: planes[c] is channel c's input plane (channels past the band's
// repeat its last one; their weights are 0).
void transpose_in(const Int8DepthwiseProblem& p, const int8_t* const (&planes)[kBand],
                  int16_t* pixels) {
  const int64_t wp = padded_w(p), hp = padded_h(p);
  // Padding: top and bottom rows whole, the left and right columns of the
  // rows in between.
  std::memset(pixels, 0, sizeof(int16_t) * static_cast<size_t>(p.pad_h * wp * kBand));
  std::memset(pixels + (p.pad_h + p.height) * wp * kBand, 0,
              sizeof(int16_t) * static_cast<size_t>((hp - p.pad_h - p.height) * wp * kBand));
  if (p.pad_w > 0) {
    for (int64_t r = p.pad_h; r < p.pad_h + p.height; ++r) {
      int16_t* row = pixels + r * wp * kBand;
      std::memset(row, 0, sizeof(int16_t) * static_cast<size_t>(p.pad_w * kBand));
      std::memset(row + (p.pad_w + p.width) * kBand, 0,
                  sizeof(int16_t) * static_cast<size_t>(p.pad_w * kBand));
    }
  }
  const int8x16_t zx = vdupq_n_s8(static_cast<int8_t>(p.in_zero_point));
  for_each_band_pixel(p, planes, [&](int8x16_t x, int64_t at) {
    // x - zx in int16: the difference of two int8 widened (vsubl).
    int16_t* dst = pixels + at * kBand;
    vst1q_s16(dst, vsubl_s8(vget_low_s8(x), vget_low_s8(zx)));
    vst1q_s16(dst + 8, vsubl_high_s8(x, zx));
  });
}

// Step 3: the 16 sums of one output pixel whose first input is `at` (any
// filter: weights and tap offsets read from the workspace).
__attribute__((always_inline)) inline void pixel_sums(const int16_t* at, const Workspace& w,
                                                      int32x4_t (&acc)[4]) {
  for (int i = 0; i < 4; ++i) acc[i] = vdupq_n_s32(0);
  const int64_t taps = w.taps;
  for (int64_t t = 0; t < taps; ++t) {
    const int16_t* x = at + w.tap_offsets[t];
    const int16x8_t x0 = vld1q_s16(x), x1 = vld1q_s16(x + 8);
    const int16x8_t w0 = vld1q_s16(w.weights + t * kBand);
    const int16x8_t w1 = vld1q_s16(w.weights + t * kBand + 8);
    acc[0] = vmlal_s16(acc[0], vget_low_s16(x0), vget_low_s16(w0));
    acc[1] = vmlal_high_s16(acc[1], x0, w0);
    acc[2] = vmlal_s16(acc[2], vget_low_s16(x1), vget_low_s16(w1));
    acc[3] = vmlal_high_s16(acc[3], x1, w1);
  }
}

// Steps 3-4 for `count` output pixels from flat pixel `start` of an
// undilated 3x3 filter with the integer epilogue, into the tile: the 18
// weight vectors pinned to v8-v25 and the taps an asm statement (per tap
// one ldp and four smull/smlal at immediate offsets from three row
// pointers). From intrinsics GCC 12 kept the weights' low halves, or 14 of
// the vectors, in memory: a reload per multiply-add, ~125 instructions per
// pixel. The epilogue's factors are re-read per pixel through a pointer GCC
// cannot see into (kept in registers across the loop they would push the
// weights out again).
template <bool kBias>
__attribute__((noinline)) void tile_3x3(const Int8DepthwiseProblem& p, const Workspace& w,
                                        const IntRequant& iq, int64_t start, int64_t count,
                                        int8_t* tile) {
  register int16x8_t w0 asm("v8") = vld1q_s16(w.weights + 0);
  register int16x8_t w1 asm("v9") = vld1q_s16(w.weights + 8);
  register int16x8_t w2 asm("v10") = vld1q_s16(w.weights + 16);
  register int16x8_t w3 asm("v11") = vld1q_s16(w.weights + 24);
  register int16x8_t w4 asm("v12") = vld1q_s16(w.weights + 32);
  register int16x8_t w5 asm("v13") = vld1q_s16(w.weights + 40);
  register int16x8_t w6 asm("v14") = vld1q_s16(w.weights + 48);
  register int16x8_t w7 asm("v15") = vld1q_s16(w.weights + 56);
  register int16x8_t w8 asm("v16") = vld1q_s16(w.weights + 64);
  register int16x8_t w9 asm("v17") = vld1q_s16(w.weights + 72);
  register int16x8_t w10 asm("v18") = vld1q_s16(w.weights + 80);
  register int16x8_t w11 asm("v19") = vld1q_s16(w.weights + 88);
  register int16x8_t w12 asm("v20") = vld1q_s16(w.weights + 96);
  register int16x8_t w13 asm("v21") = vld1q_s16(w.weights + 104);
  register int16x8_t w14 asm("v22") = vld1q_s16(w.weights + 112);
  register int16x8_t w15 asm("v23") = vld1q_s16(w.weights + 120);
  register int16x8_t w16 asm("v24") = vld1q_s16(w.weights + 128);
  register int16x8_t w17 asm("v25") = vld1q_s16(w.weights + 136);
  // Locals: the tile's int8 stores may alias anything, so fields read
  // through p or w would be re-read after each.
  const int64_t wp = padded_w(p), row_step = wp * kBand, out_width = p.out_width;
  const int64_t row_pixels = p.stride_h * wp * kBand, col_pixels = p.stride_w * kBand;
  const int16_t* pixels = w.pixels;
  const float* const scale_bias = w.scale;
  int64_t oh = start / out_width, ow = start % out_width;
  for (int64_t j = 0; j < count; ++j) {
    const int16_t* r0 = pixels + oh * row_pixels + ow * col_pixels;
    const int16_t* r1 = r0 + row_step;
    const int16_t* r2 = r1 + row_step;
    int32x4_t a0, a1, a2, a3;
    int16x8_t t0, t1;
    asm("// 3x3 taps, 16 channels\n"
          "ldp %q[t0], %q[t1], [%[r0], #0]\n"
          "smull %[a0].4s, %[t0].4h, %[w0].4h\n"
          "smull2 %[a1].4s, %[t0].8h, %[w0].8h\n"
          "smull %[a2].4s, %[t1].4h, %[w1].4h\n"
          "smull2 %[a3].4s, %[t1].8h, %[w1].8h\n"
          "ldp %q[t0], %q[t1], [%[r0], #32]\n"
          "smlal %[a0].4s, %[t0].4h, %[w2].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w2].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w3].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w3].8h\n"
          "ldp %q[t0], %q[t1], [%[r0], #64]\n"
          "smlal %[a0].4s, %[t0].4h, %[w4].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w4].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w5].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w5].8h\n"
          "ldp %q[t0], %q[t1], [%[r1], #0]\n"
          "smlal %[a0].4s, %[t0].4h, %[w6].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w6].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w7].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w7].8h\n"
          "ldp %q[t0], %q[t1], [%[r1], #32]\n"
          "smlal %[a0].4s, %[t0].4h, %[w8].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w8].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w9].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w9].8h\n"
          "ldp %q[t0], %q[t1], [%[r1], #64]\n"
          "smlal %[a0].4s, %[t0].4h, %[w10].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w10].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w11].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w11].8h\n"
          "ldp %q[t0], %q[t1], [%[r2], #0]\n"
          "smlal %[a0].4s, %[t0].4h, %[w12].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w12].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w13].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w13].8h\n"
          "ldp %q[t0], %q[t1], [%[r2], #32]\n"
          "smlal %[a0].4s, %[t0].4h, %[w14].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w14].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w15].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w15].8h\n"
          "ldp %q[t0], %q[t1], [%[r2], #64]\n"
          "smlal %[a0].4s, %[t0].4h, %[w16].4h\n"
          "smlal2 %[a1].4s, %[t0].8h, %[w16].8h\n"
          "smlal %[a2].4s, %[t1].4h, %[w17].4h\n"
          "smlal2 %[a3].4s, %[t1].8h, %[w17].8h\n"
        : [a0] "=&w"(a0), [a1] "=&w"(a1), [a2] "=&w"(a2), [a3] "=&w"(a3), [t0] "=&w"(t0),
          [t1] "=&w"(t1)
        : [r0] "r"(r0), [r1] "r"(r1), [r2] "r"(r2), [w0] "w"(w0), [w1] "w"(w1), [w2] "w"(w2), [w3] "w"(w3), [w4] "w"(w4), [w5] "w"(w5), [w6] "w"(w6), [w7] "w"(w7), [w8] "w"(w8), [w9] "w"(w9), [w10] "w"(w10), [w11] "w"(w11), [w12] "w"(w12), [w13] "w"(w13), [w14] "w"(w14), [w15] "w"(w15), [w16] "w"(w16), [w17] "w"(w17)
        // No "memory" clobber: the asm reads the padded pixels, written
        // before this function is called and not in it, so no store here can
        // move past it; with the clobber GCC re-read p's fields per pixel.
        );
    const float* factors = scale_bias;  // scale [16] then bias [16]
    const IntRequant* consts = &iq;
    asm("" : "+r"(factors), "+r"(consts));
    float32x4_t sv[4], bv[4];
    for (int i = 0; i < 4; ++i) {
      sv[i] = vld1q_f32(factors + 4 * i);
      bv[i] = vld1q_f32(factors + kBand + 4 * i);
    }
    const int32x4_t acc[4] = {a0, a1, a2, a3};
    vst1q_s8(tile + j * kBand, consts->operator()<kBias>(acc, sv, bv));
    if (++ow == out_width) {
      ow = 0;
      ++oh;
    }
  }
}

// Steps 3-4 for one band: every output pixel, 16 at a time into the tile,
// then out to the band's cn planes starting at `out`.
template <int kTaps, bool kExact, bool kBias>
void band_outputs(const Int8DepthwiseProblem& p, const Workspace& w, int64_t cn, int8_t* out) {
  const int64_t wp = padded_w(p);
  const IntRequant iq(p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
  const ChannelRequant fq(p.in_scale, 1.0f, nullptr, p.inv_out_scale, p.out_zero_point,
                          p.quant_min, p.quant_max);
  float32x4_t scale[4], bias[4];
  for (int i = 0; i < 4; ++i) {
    scale[i] = vld1q_f32(w.scale + 4 * i);
    bias[i] = vld1q_f32(w.bias + 4 * i);
  }
  for_each_output_tile(p, cn, w.tile, out, [&](int64_t q0, int64_t count, int8_t* tile) {
    if constexpr (kTaps == 9 && kExact) {
      tile_3x3<kBias>(p, w, iq, q0, count, tile);
    } else {
      int64_t oh = q0 / p.out_width, ow = q0 % p.out_width;
      for (int64_t j = 0; j < count; ++j) {
        const int16_t* at = w.pixels + (oh * p.stride_h * wp + ow * p.stride_w) * kBand;
        int32x4_t acc[4];
        pixel_sums(at, w, acc);
        int8x16_t bytes;
        if constexpr (kExact) {
          bytes = iq.operator()<kBias>(acc, scale, bias);
        } else {
          bytes = narrow_16(requantize_lanes(acc[0], scale[0], bias[0], kBias, fq),
                            requantize_lanes(acc[1], scale[1], bias[1], kBias, fq),
                            requantize_lanes(acc[2], scale[2], bias[2], kBias, fq),
                            requantize_lanes(acc[3], scale[3], bias[3], kBias, fq));
        }
        vst1q_s8(tile + j * kBand, bytes);
        if (++ow == p.out_width) {
          ow = 0;
          ++oh;
        }
      }
    }
  });
}

template <int kTaps>
void band_outputs_of(const Int8DepthwiseProblem& p, const Workspace& w, int64_t cn, bool exact,
                     int8_t* out) {
  const bool bias = p.bias != nullptr;
  if (exact) {
    bias ? band_outputs<kTaps, true, true>(p, w, cn, out)
         : band_outputs<kTaps, true, false>(p, w, cn, out);
  } else {
    bias ? band_outputs<kTaps, false, true>(p, w, cn, out)
         : band_outputs<kTaps, false, false>(p, w, cn, out);
  }
}

}  // namespace

bool int8_depthwise_neon_channels_applies(const Int8DepthwiseProblem& p) {
  return p.taps() <= kInt8DepthwiseNeonChannelsMaxTaps &&
         pixel_bytes(p) <= kInt8DepthwiseNeonChannelsMaxBytes;
}

size_t int8_depthwise_neon_channels_worker_bytes(const Int8DepthwiseProblem& p) {
  return pixel_bytes(p) + weight_bytes(p) + offset_bytes(p) + round_up_64(kParamBytes) +
         round_up_64(kTileBytes);
}

void int8_depthwise_neon_channels(const Int8DepthwiseProblem& p, int64_t unit_begin,
                                  int64_t unit_end, void* worker_scratch) {
  const Workspace w = workspace_of(p, worker_scratch);
  const int64_t bands = (p.channels + kBand - 1) / kBand;
  const int64_t hw = p.height * p.width, ohw = p.out_height * p.out_width;
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t n = u / bands, c0 = (u % bands) * kBand;
    const int64_t cn = std::min(kBand, p.channels - c0);
    const bool exact = band_factors(p, c0, cn, w);
    const int8_t* planes[kBand];
    for (int64_t c = 0; c < kBand; ++c) {
      planes[c] = p.input + (n * p.channels + c0 + std::min(c, cn - 1)) * hw;
    }
    transpose_in(p, planes, w.pixels);
    int8_t* out = p.out + (n * p.channels + c0) * ohw;
    if (p.kernel_h == 3 && p.kernel_w == 3 && p.dilation_h == 1 && p.dilation_w == 1) {
      band_outputs_of<9>(p, w, cn, exact, out);
    } else {
      band_outputs_of<0>(p, w, cn, exact, out);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
