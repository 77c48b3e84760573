// int8_depthwise_dotprod_channels (support/int8_depthwise.h): the int8
// depthwise convolution of undilated 3x3 filters on AArch64 with the
// dot-product extension (compiled with +dotprod, entered at kDotProd), in
// channel blocks of 16 like int8_depthwise_channels_neon.cpp, with the
// taps as sdot instead of widening multiply-adds. Per unit (one image, a
// band of 16 channels):
//  1. factors: per kernel row and group of 4 channels one weight vector,
//     each channel's quad [w(kh, 0), w(kh, 1), w(kh, 2), 0]; the zero
//     point's share -zx * sum w per channel (the sums start there, so the
//     raw int8 input is multiplied: sum (x - zx) w = sum x w - zx sum w,
//     exact); in_scale * w_scale, bias and the output constants.
//  2. the band's planes transposed into int8 [H + 2 pad_h][W + 2 pad_w][16]
//     (raw bytes; the padding holds zx, written once per call; rows of 16
//     or more pixels straight into the band, narrower maps 16 flat pixels
//     at a time into staging rows, then copied), then per
//     padded row and output column ow the quads: the 4 pixels from column
//     ow * stride_w as sdot operands (ld1 of 64 bytes, st4: channel c's
//     word is its 4 consecutive pixels), [rows][OW][64 bytes].
//  3. per output pixel of the whole band, in one call: the sums start at
//     the zero point's share (one ld1 of 4 vectors), 3 loads and 12 sdot
//     (one row of taps per sdot), and
//     the integer epilogue of arm/requantize_neon.h's IntRequant, all in
//     one asm statement with the 12 weight vectors and the 12 epilogue
//     vectors in registers (v8-v31) across the pixels; ~16 instructions of
//     taps per 16 channels instead of ~49 with the int16 multiply-adds,
//     and no factor reloads (~8). A band with a NaN bias (or an infinite
//     one that a product could cancel) runs requantize()'s float operations.
//  4. the band's output bytes transposed back into the planes 16 pixels
//     at a time (arm/int8_depthwise_band_neon.h).
// Bit for bit the scalar path's values.
#include <arm_neon.h>

#include <algorithm>

#include "kernels/quantized/support/arm/int8_depthwise_band_neon.h"
#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace quantized {
namespace {

// The padded band, with one pixel's slack: the quads of the last output
// column read one pixel past its row (with weight 0).
size_t pixel_bytes(const Int8DepthwiseProblem& p) {
  return round_up_64(static_cast<size_t>((padded_h(p) * padded_w(p) + 1) * kBand));
}
size_t quad_bytes(const Int8DepthwiseProblem& p) {
  return static_cast<size_t>(padded_h(p) * p.out_width * kBand * 4);
}

constexpr size_t kWeightBytes = 3 * kBand * 4;  // [kh][4 groups][4 channels][4]
constexpr size_t kShareBytes = kBand * sizeof(int32_t);
constexpr size_t kFactorBytes = 2 * kBand * sizeof(float) + 64;  // scale, bias, consts
// Maps narrower than 16 (and of at least 16 pixels): the band's input
// pixels transposed flat, [H * W][16], before they go into the padded rows.
size_t staging_bytes(const Int8DepthwiseProblem& p) {
  const int64_t hw = p.height * p.width;
  return p.width < kTile && hw >= kTile ? round_up_64(static_cast<size_t>(hw * kBand)) : 0;
}

// The band's output bytes, [OH * OW][16], room for 16 pixels at least.
size_t output_bytes(const Int8DepthwiseProblem& p) {
  return round_up_64(static_cast<size_t>(std::max(p.out_height * p.out_width, kTile) * kBand));
}

// The worker's scratch. `factors`: scale [16], bias [16] (0 without a
// bias), then IntRequant's constants as 4 vectors (inv_out_scale x 4,
// zero point int16 x 8, quant_min and quant_max int8 x 16 each), so each
// group of 4 vectors is one ld1.
struct Workspace {
  int8_t* pixels;  // [H + 2 pad_h][W + 2 pad_w][16] (+ 1 pixel)
  int8_t* quads;   // [H + 2 pad_h][OW][16 channels][4]
  int8_t* staging;  // [H * W][16] (staging_bytes)
  int8_t* weights;
  int32_t* share;  // [16]: -zx * sum w
  float* factors;
  int8_t* outputs;  // [OH * OW][16 channels]
};

Workspace workspace_of(const Int8DepthwiseProblem& p, void* scratch) {
  // Each part in turn, as int8_depthwise_dotprod_channels_worker_bytes sums them.
  char* at = static_cast<char*>(scratch);
  auto take = [&at](size_t bytes) {
    char* part = at;
    at += bytes;
    return part;
  };
  Workspace w;
  w.pixels = reinterpret_cast<int8_t*>(take(pixel_bytes(p)));
  w.quads = reinterpret_cast<int8_t*>(take(round_up_64(quad_bytes(p))));
  w.staging = reinterpret_cast<int8_t*>(take(staging_bytes(p)));
  w.weights = reinterpret_cast<int8_t*>(take(round_up_64(kWeightBytes)));
  w.share = reinterpret_cast<int32_t*>(take(round_up_64(kShareBytes)));
  w.factors = reinterpret_cast<float*>(take(round_up_64(kFactorBytes)));
  w.outputs = reinterpret_cast<int8_t*>(take(output_bytes(p)));
  return w;
}

// Step 1 for a full band (cn == 16) in vectors: the 144 weight bytes as 9
// registers; group g's 36 bytes lie in registers 2g..2g+2 from byte 4g, so
// each row of quads is one tbl (lane 4i + k: byte 4g + 9i + 3kh + k, and
// an out-of-range index, 0, for k == 3); the weight sums by sdot against
// ones; the exactness test of int_requant_exact lane by lane. The scalar
// loop below took ~1,100 instructions per band (0.5M on MobileNetV2).
bool band_factors_full(const Int8DepthwiseProblem& p, int64_t c0, const Workspace& w) {
  const int8_t* k = p.weight + c0 * 9;
  const int8x16x3_t r0 = vld1q_s8_x3(k), r1 = vld1q_s8_x3(k + 48), r2 = vld1q_s8_x3(k + 96);
  const int8x16_t reg[9] = {r0.val[0], r0.val[1], r0.val[2], r1.val[0], r1.val[1],
                            r1.val[2], r2.val[0], r2.val[1], r2.val[2]};
  static constexpr uint8_t kBase[16] = {0,  1,  2,  0x80, 9,  10, 11, 0x80,
                                        18, 19, 20, 0x80, 27, 28, 29, 0x80};
  const uint8x16_t base = vld1q_u8(kBase);
  const int8x16_t ones = vdupq_n_s8(1);
  const int32_t minus_zx = -p.in_zero_point;
  const float32x4_t inf = vdupq_n_f32(__builtin_inff());
  uint32x4_t exact = vdupq_n_u32(~0u);
  float* scale = w.factors;
  float* bias = w.factors + kBand;
  for (int g = 0; g < 4; ++g) {
    const int8x16x3_t table = {{reg[2 * g], reg[2 * g + 1], reg[2 * g + 2]}};
    int32x4_t sum = vdupq_n_s32(0);
    for (int kh = 0; kh < 3; ++kh) {
      const uint8x16_t idx = vaddq_u8(base, vdupq_n_u8(static_cast<uint8_t>(4 * g + 3 * kh)));
      const int8x16_t quads = vqtbl3q_s8(table, idx);
      vst1q_s8(w.weights + kh * 4 * kBand + 16 * g, quads);
      sum = vdotq_s32(sum, quads, ones);
    }
    vst1q_s32(w.share + 4 * g, vmulq_n_s32(sum, minus_zx));
    const float32x4_t sv = vmulq_n_f32(vld1q_f32(p.w_scales + c0 + 4 * g), p.in_scale);
    vst1q_f32(scale + 4 * g, sv);
    if (p.bias != nullptr) {
      const float32x4_t b = vld1q_f32(p.bias + c0 + 4 * g);
      vst1q_f32(bias + 4 * g, b);
      const uint32x4_t finite_product = vcaltq_f32(vmulq_n_f32(sv, 2147483648.0f), inf);
      exact = vandq_u32(exact, vandq_u32(vceqq_f32(b, b),
                                         vorrq_u32(vcaltq_f32(b, inf), finite_product)));
    } else {
      vst1q_f32(bias + 4 * g, vdupq_n_f32(0.0f));
    }
  }
  return vminvq_u32(exact) != 0;
}

// Step 1. Returns whether every channel of the band allows IntRequant.
bool band_factors(const Int8DepthwiseProblem& p, int64_t c0, int64_t cn, const Workspace& w) {
  bool exact = true;
  float* scale = w.factors;
  float* bias = w.factors + kBand;
  for (int64_t c = 0; c < kBand; ++c) {
    const bool real = c < cn;
    const int8_t* k = p.weight + (c0 + std::min(c, cn - 1)) * 9;
    int32_t sum = 0;
    for (int64_t kh = 0; kh < 3; ++kh) {
      int8_t* quad = w.weights + kh * kBand * 4 + c * 4;
      for (int64_t kw = 0; kw < 3; ++kw) {
        quad[kw] = real ? k[kh * 3 + kw] : 0;
        sum += quad[kw];
      }
      quad[3] = 0;
    }
    w.share[c] = -p.in_zero_point * sum;
    scale[c] = real ? p.in_scale * p.w_scales[c0 + c] : 0.0f;
    bias[c] = real && p.bias != nullptr ? p.bias[c0 + c] : 0.0f;
    if (real) {
      exact = exact && int_requant_exact(scale[c], p.bias != nullptr ? p.bias + c0 + c : nullptr);
    }
  }
  return exact;
}

// The output constants after scale and bias (set once per call).
void set_output_constants(const Int8DepthwiseProblem& p, const Workspace& w) {
  float* consts = w.factors + 2 * kBand;
  vst1q_f32(consts, vdupq_n_f32(p.inv_out_scale));
  vst1q_s16(reinterpret_cast<int16_t*>(consts + 4),
            vdupq_n_s16(static_cast<int16_t>(p.out_zero_point)));
  vst1q_s8(reinterpret_cast<int8_t*>(consts + 8), vdupq_n_s8(static_cast<int8_t>(p.quant_min)));
  vst1q_s8(reinterpret_cast<int8_t*>(consts + 12), vdupq_n_s8(static_cast<int8_t>(p.quant_max)));
}

// Step 2: planes[c] is channel c's input plane (channels past the band's
// repeat its last one; their weights are 0). The padding was filled with
// zx by the caller and is never written here.
void band_quads(const Int8DepthwiseProblem& p, const int8_t* const (&planes)[kBand],
                const Workspace& w) {
  const int64_t wp = padded_w(p), hp = padded_h(p), ow_n = p.out_width, sw = p.stride_w;
  const int64_t pad_h = p.pad_h, pad_w = p.pad_w;
  int8_t* pixels = w.pixels;
  const int64_t width = p.width;
  if (width >= kTile) {
    // Per input row, 16 columns at a time (a row's last chunk overlaps the
    // one before), transposed straight into the band's row: per pixel
    // about 4 instructions instead of 20 through for_each_band_pixel.
    alignas(16) int8_t tmp[kBand * kTile];
    const bool full = planes[kBand - 1] == planes[0] + (kBand - 1) * p.height * width;
    const int64_t plane_stride = p.height * width;
    for (int64_t ih = 0; ih < p.height; ++ih) {
      int8_t* dst = pixels + ((ih + pad_h) * wp + pad_w) * kBand;
      for (int64_t iw0 = 0;; iw0 += kTile) {
        const int64_t iw = std::min(iw0, width - kTile);
        const int64_t at = ih * width + iw;
        if (full) {
          const int8_t* first = planes[0] + at;
          rows_to_pixels([&](int c) { return first + c * plane_stride; }, tmp, dst + iw * kBand);
        } else {
          rows_to_pixels([&](int c) { return planes[c] + at; }, tmp, dst + iw * kBand);
        }
        if (iw + kTile >= width) break;
      }
    }
  } else if (p.height * width >= kTile) {  // staging_bytes(p) > 0
    // Narrow maps: 16 flat pixels at a time (the last chunk overlaps the
    // one before) transposed into the flat staging rows, then each row
    // copied into its padded row two pixels per load and store (per pixel
    // ~6 instructions instead of ~16 with a store per pixel from a tile).
    alignas(16) int8_t tmp[kBand * kTile];
    const int64_t hw = p.height * width;
    for (int64_t q0 = 0;; q0 += kTile) {
      const int64_t at = std::min(q0, hw - kTile);
      rows_to_pixels([&](int c) { return planes[c] + at; }, tmp, w.staging + at * kBand);
      if (at + kTile >= hw) break;
    }
    const int8_t* src = w.staging;
    for (int64_t ih = 0; ih < p.height; ++ih) {
      int8_t* dst = pixels + ((ih + pad_h) * wp + pad_w) * kBand;
      int64_t iw = 0;
      for (; iw + 2 <= width; iw += 2) vst1q_s8_x2(dst + iw * kBand, vld1q_s8_x2(src + iw * kBand));
      if (iw < width) vst1q_s8(dst + iw * kBand, vld1q_s8(src + iw * kBand));
      src += width * kBand;
    }
  } else {
    for_each_band_pixel(p, planes, [&](int8x16_t x, int64_t at) { vst1q_s8(pixels + at * kBand, x); });
  }
  int8_t* quad = w.quads;
  for (int64_t r = 0; r < hp; ++r) {
    const int8_t* src = pixels + r * wp * kBand;
#pragma GCC unroll 2
    for (int64_t ow = 0; ow < ow_n; ++ow) {
      vst4q_s8(quad, vld1q_s8_x4(src));
      src += sw * kBand;
      quad += 4 * kBand;
    }
  }
}

// The asm statement's parts: the sums from the zero point's share and the
// 12 sdot of one pixel (v0-v3), then IntRequant on them into v4 (with or
// without the bias add), stored to the tile.
#define TE_DW_DOT_TAPS                                                         \
  "ld1 {v0.4s-v3.4s}, [%[share]]\n"                                            \
  "ld1 {v4.16b-v7.16b}, [%[q]], %[row]\n"                                             \
  "sdot v0.4s, v4.16b, %[w00].16b\n"                                           \
  "sdot v1.4s, v5.16b, %[w01].16b\n"                                           \
  "sdot v2.4s, v6.16b, %[w02].16b\n"                                           \
  "sdot v3.4s, v7.16b, %[w03].16b\n"                                           \
  "ld1 {v4.16b-v7.16b}, [%[q]], %[row]\n"                                             \
  "sdot v0.4s, v4.16b, %[w10].16b\n"                                           \
  "sdot v1.4s, v5.16b, %[w11].16b\n"                                           \
  "sdot v2.4s, v6.16b, %[w12].16b\n"                                           \
  "sdot v3.4s, v7.16b, %[w13].16b\n"                                           \
  "ld1 {v4.16b-v7.16b}, [%[q]], %[back]\n"                                            \
  "sdot v0.4s, v4.16b, %[w20].16b\n"                                           \
  "sdot v1.4s, v5.16b, %[w21].16b\n"                                           \
  "sdot v2.4s, v6.16b, %[w22].16b\n"                                           \
  "sdot v3.4s, v7.16b, %[w23].16b\n"                                           \
  "scvtf v0.4s, v0.4s\n"                                                       \
  "scvtf v1.4s, v1.4s\n"                                                       \
  "scvtf v2.4s, v2.4s\n"                                                       \
  "scvtf v3.4s, v3.4s\n"                                                       \
  "fmul v0.4s, v0.4s, %[s0].4s\n"                                              \
  "fmul v1.4s, v1.4s, %[s1].4s\n"                                              \
  "fmul v2.4s, v2.4s, %[s2].4s\n"                                              \
  "fmul v3.4s, v3.4s, %[s3].4s\n"
#define TE_DW_DOT_BIAS                                                         \
  "fadd v0.4s, v0.4s, %[b0].4s\n"                                              \
  "fadd v1.4s, v1.4s, %[b1].4s\n"                                              \
  "fadd v2.4s, v2.4s, %[b2].4s\n"                                              \
  "fadd v3.4s, v3.4s, %[b3].4s\n"
#define TE_DW_DOT_REQUANT                                                      \
  "fmul v0.4s, v0.4s, %[inv].4s\n"                                             \
  "fmul v1.4s, v1.4s, %[inv].4s\n"                                             \
  "fmul v2.4s, v2.4s, %[inv].4s\n"                                             \
  "fmul v3.4s, v3.4s, %[inv].4s\n"                                             \
  "fcvtns v0.4s, v0.4s\n"                                                      \
  "fcvtns v1.4s, v1.4s\n"                                                      \
  "fcvtns v2.4s, v2.4s\n"                                                      \
  "fcvtns v3.4s, v3.4s\n"                                                      \
  "sqxtn v4.4h, v0.4s\n"                                                       \
  "sqxtn2 v4.8h, v1.4s\n"                                                      \
  "sqxtn v5.4h, v2.4s\n"                                                       \
  "sqxtn2 v5.8h, v3.4s\n"                                                      \
  "sqadd v4.8h, v4.8h, %[zp].8h\n"                                             \
  "sqadd v5.8h, v5.8h, %[zp].8h\n"                                             \
  "sqxtn v4.8b, v4.8h\n"                                                       \
  "sqxtn2 v4.16b, v5.8h\n"                                                     \
  "smax v4.16b, v4.16b, %[lo].16b\n"                                           \
  "smin v4.16b, v4.16b, %[hi].16b\n"                                           \
  "str q4, %[dst]\n"

// Step 3 with the integer epilogue for `count` output pixels from flat
// pixel `start` into the tile. The 24 vectors are pinned to v8-v31 (from
// intrinsics GCC 12 reloads weights or factors when fewer than 8 registers
// are left it, as in int8_depthwise_channels_neon.cpp's tile_3x3).
template <bool kBias>
__attribute__((noinline)) void tile_3x3_dot(const Int8DepthwiseProblem& p, const Workspace& w,
                                            int64_t start, int64_t count, int8_t* tile) {
  register int8x16_t w00 asm("v8") = vld1q_s8(w.weights + 0);
  register int8x16_t w01 asm("v9") = vld1q_s8(w.weights + 16);
  register int8x16_t w02 asm("v10") = vld1q_s8(w.weights + 32);
  register int8x16_t w03 asm("v11") = vld1q_s8(w.weights + 48);
  register int8x16_t w10 asm("v12") = vld1q_s8(w.weights + 64);
  register int8x16_t w11 asm("v13") = vld1q_s8(w.weights + 80);
  register int8x16_t w12 asm("v14") = vld1q_s8(w.weights + 96);
  register int8x16_t w13 asm("v15") = vld1q_s8(w.weights + 112);
  register int8x16_t w20 asm("v16") = vld1q_s8(w.weights + 128);
  register int8x16_t w21 asm("v17") = vld1q_s8(w.weights + 144);
  register int8x16_t w22 asm("v18") = vld1q_s8(w.weights + 160);
  register int8x16_t w23 asm("v19") = vld1q_s8(w.weights + 176);
  const float* f = w.factors;
  register float32x4_t s0 asm("v20") = vld1q_f32(f + 0);
  register float32x4_t s1 asm("v21") = vld1q_f32(f + 4);
  register float32x4_t s2 asm("v22") = vld1q_f32(f + 8);
  register float32x4_t s3 asm("v23") = vld1q_f32(f + 12);
  register float32x4_t b0 asm("v24") = vld1q_f32(f + 16);
  register float32x4_t b1 asm("v25") = vld1q_f32(f + 20);
  register float32x4_t b2 asm("v26") = vld1q_f32(f + 24);
  register float32x4_t b3 asm("v27") = vld1q_f32(f + 28);
  register float32x4_t inv asm("v28") = vld1q_f32(f + 32);
  register int16x8_t zp asm("v29") = vld1q_s16(reinterpret_cast<const int16_t*>(f + 36));
  register int8x16_t lo asm("v30") = vld1q_s8(reinterpret_cast<const int8_t*>(f + 40));
  register int8x16_t hi asm("v31") = vld1q_s8(reinterpret_cast<const int8_t*>(f + 44));
  // Locals: the tile's stores may alias anything for GCC.
  const int64_t out_width = p.out_width;
  const int64_t row = out_width * 4 * kBand;        // one padded row of quads
  const int64_t row_jump = (p.stride_h - 1) * row;  // from a row's end to the next output row's
  const int32_t* share = w.share;
  int64_t ow = start % out_width;
  // The asm steps one pointer through the pixel's three rows of quads
  // and on to the next pixel (loads post-indexed by `row`, `row`, `back`):
  // per pixel only the tile pointer and the loop's count and branch
  // besides (at most 30 asm operands: no room for three row pointers).
  const int8_t* q = w.quads + ((start / out_width) * p.stride_h * out_width + ow) * 4 * kBand;
  const int64_t back = 4 * kBand - 2 * row;
  int8x16_t* dst = reinterpret_cast<int8x16_t*>(tile);
  for (int64_t left = count; left > 0;) {
    const int64_t n = std::min(left, out_width - ow);
    for (int64_t j = 0; j < n; ++j, ++dst) {
#define TE_DW_DOT_OPERANDS                                                                \
  : [q] "+r"(q), [dst] "=m"(*dst)                                                         \
  : [share] "r"(share), [row] "r"(row), [back] "r"(back), [w00] "w"(w00), [w01] "w"(w01), \
    [w02] "w"(w02), [w03] "w"(w03), [w10] "w"(w10), [w11] "w"(w11), [w12] "w"(w12),        \
    [w13] "w"(w13), [w20] "w"(w20), [w21] "w"(w21), [w22] "w"(w22), [w23] "w"(w23),        \
    [s0] "w"(s0), [s1] "w"(s1), [s2] "w"(s2), [s3] "w"(s3), [b0] "w"(b0), [b1] "w"(b1),    \
    [b2] "w"(b2), [b3] "w"(b3), [inv] "w"(inv), [zp] "w"(zp), [lo] "w"(lo), [hi] "w"(hi)   \
  : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"
    // No "memory" clobber: the asm reads the quads and the share, written
    // before this function is called and not in it.
      if constexpr (kBias) {
        asm(TE_DW_DOT_TAPS TE_DW_DOT_BIAS TE_DW_DOT_REQUANT TE_DW_DOT_OPERANDS);
      } else {
        asm(TE_DW_DOT_TAPS TE_DW_DOT_REQUANT TE_DW_DOT_OPERANDS);
      }
#undef TE_DW_DOT_OPERANDS
    }
    left -= n;
    ow += n;
    if (ow == out_width) {
      ow = 0;
      q += row_jump;
    }
  }
}

#undef TE_DW_DOT_TAPS
#undef TE_DW_DOT_BIAS
#undef TE_DW_DOT_REQUANT

// Step 3 with requantize()'s float operations (a band with a NaN bias).
void tile_3x3_dot_float(const Int8DepthwiseProblem& p, const Workspace& w, int64_t start,
                        int64_t count, int8_t* tile) {
  const ChannelRequant fq(p.in_scale, 1.0f, nullptr, p.inv_out_scale, p.out_zero_point,
                          p.quant_min, p.quant_max);
  const bool has_bias = p.bias != nullptr;
  int8x16_t wv[3][4];
  float32x4_t scale[4], bias[4];
  for (int i = 0; i < 4; ++i) {
    for (int kh = 0; kh < 3; ++kh) wv[kh][i] = vld1q_s8(w.weights + kh * 64 + 16 * i);
    scale[i] = vld1q_f32(w.factors + 4 * i);
    bias[i] = vld1q_f32(w.factors + kBand + 4 * i);
  }
  const int64_t row = p.out_width * 4 * kBand;
  int64_t oh = start / p.out_width, ow = start % p.out_width;
  for (int64_t j = 0; j < count; ++j) {
    const int8_t* q = w.quads + (oh * p.stride_h * p.out_width + ow) * 4 * kBand;
    int32x4_t acc[4];
    for (int i = 0; i < 4; ++i) acc[i] = vld1q_s32(w.share + 4 * i);
    for (int kh = 0; kh < 3; ++kh) {
      for (int i = 0; i < 4; ++i) {
        acc[i] = vdotq_s32(acc[i], vld1q_s8(q + kh * row + 16 * i), wv[kh][i]);
      }
    }
    int32x4_t r[4];
    for (int i = 0; i < 4; ++i) r[i] = requantize_lanes(acc[i], scale[i], bias[i], has_bias, fq);
    vst1q_s8(tile + j * kBand, narrow_16(r[0], r[1], r[2], r[3]));
    if (++ow == p.out_width) {
      ow = 0;
      ++oh;
    }
  }
}

}  // namespace

bool int8_depthwise_dotprod_channels_applies(const Int8DepthwiseProblem& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.dilation_h == 1 && p.dilation_w == 1 &&
         pixel_bytes(p) + quad_bytes(p) + staging_bytes(p) + output_bytes(p) <=
             kInt8DepthwiseNeonChannelsMaxBytes;
}

size_t int8_depthwise_dotprod_channels_worker_bytes(const Int8DepthwiseProblem& p) {
  return pixel_bytes(p) + round_up_64(quad_bytes(p)) + staging_bytes(p) +
         round_up_64(kWeightBytes) +
         round_up_64(kShareBytes) + round_up_64(kFactorBytes) + output_bytes(p);
}

void int8_depthwise_dotprod_channels(const Int8DepthwiseProblem& p, int64_t unit_begin,
                                     int64_t unit_end, void* worker_scratch) {
  const Workspace w = workspace_of(p, worker_scratch);
  // The padding (and the slack pixel) hold zx for every band: the bands
  // write only the interior.
  const int8x16_t zx = vdupq_n_s8(static_cast<int8_t>(p.in_zero_point));
  const int64_t padded_pixels = padded_h(p) * padded_w(p) + 1;
  for (int64_t i = 0; i < padded_pixels; ++i) vst1q_s8(w.pixels + i * kBand, zx);
  set_output_constants(p, w);
  const int64_t bands = (p.channels + kBand - 1) / kBand;
  const int64_t hw = p.height * p.width, ohw = p.out_height * p.out_width;
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t n = u / bands, c0 = (u % bands) * kBand;
    const int64_t cn = std::min(kBand, p.channels - c0);
    const bool exact = cn == kBand ? band_factors_full(p, c0, w) : band_factors(p, c0, cn, w);
    const int8_t* planes[kBand];
    for (int64_t c = 0; c < kBand; ++c) {
      planes[c] = p.input + (n * p.channels + c0 + std::min(c, cn - 1)) * hw;
    }
    band_quads(p, planes, w);
    int8_t* out = p.out + (n * p.channels + c0) * ohw;
    // The whole band's outputs in one call (the tile's set-up, 24 vector
    // loads, once per band), then transposed 16 pixels at a time.
    if (!exact) {
      tile_3x3_dot_float(p, w, 0, ohw, w.outputs);
    } else if (p.bias != nullptr) {
      tile_3x3_dot<true>(p, w, 0, ohw, w.outputs);
    } else {
      tile_3x3_dot<false>(p, w, 0, ohw, w.outputs);
    }
    store_band_outputs(p, cn, w.outputs, out);
  }
}

}  // namespace quantized
}  // namespace torchedge
