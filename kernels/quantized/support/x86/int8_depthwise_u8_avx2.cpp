// AVX2 per-plane path of the int8 depthwise convolution for 3x3 filters
// whose weights all fit 7 bits (contract: support/int8_depthwise.h,
// int8_depthwise_u8_applies).
//
// Why: the int16 per-plane path (int8_depthwise_avx2.cpp) widens every
// plane to int16 and interleaves tap pairs before each vpmaddwd. Here the
// plane stays one byte per pixel and needs no interleave at all: a 32-byte
// load at padded column c holds, as 8 quads, the four bytes c + 4j .. c +
// 4j + 3, and vpmaddubsw against the row's weights broadcast as the quad
// (w0, w1, w2, 0) followed by vpmaddwd by ones gives output pixel c + 4j's
// three taps of that row in int32 lane j. Loads at c, c + 1, c + 2, c + 3
// cover 32 consecutive output pixels (stride 1); at 2c, 2c + 2 (stride 2)
// 16 of them. Exact while no vpmaddubsw pair sum leaves int16: |u1 w1 +
// u2 w2| <= 2 * 255 * 64 = 32640 when every weight is in [-64, 63] (the
// conv's 7-bit u8 path makes the same trade, int8_conv_u8_avx2.cpp).
//
// Per (image, channel) plane: the plane is copied into the worker's u8
// buffer as x + 128 (x ^ 0x80) with padding bytes zx + 128, so a padded tap
// contributes (zx + 128 - (zx + 128)) * w = 0 once every sum starts at
// -(zx + 128) * sum_k w. Bytes past the padded width are padding too
// (read by lanes whose outputs are discarded). The int32 sums then take
// int8_requant_avx2.h's epilogue (float or integer form, bit for bit the
// other paths) and one vpshufb (+ vpermq at stride 2) back into pixel
// order. Compiled with -mavx2 -mfma (and -ffp-contract=off).
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/x86/int8_requant_avx2.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kBlock = 32;  // output pixels per step and row

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

struct U8Layout {
  int64_t rows;       // H + 2 pad_h
  int64_t row_bytes;  // multiple of 32
  size_t plane_bytes;
};

U8Layout u8_layout_of(const Int8DepthwiseProblem& p) {
  U8Layout l;
  l.rows = p.height + 2 * p.pad_h;
  // Reads: the last block's loads end at s * last + 3 + 31 (stride 1) or
  // 2 * last + 34 + 31 (stride 2); writes: the row copy's 32-byte stores
  // end at pad_w + round_up(W, 32).
  const int64_t last = (p.out_width - 1) / kBlock * kBlock;
  const int64_t reads = p.stride_w == 1 ? last + 35 : 2 * last + 66;
  const int64_t writes = p.pad_w + round_up(p.width, kBlock);
  l.row_bytes = round_up(std::max({p.width + 2 * p.pad_w, reads, writes}), kBlock);
  l.plane_bytes = static_cast<size_t>(round_up(l.rows * l.row_bytes, 64));
  return l;
}

// Copies input row x (W bytes) into padded row dst at column pad_w as
// x ^ 0x80; lanes past W keep the padding byte. `input_end` bounds the
// 32-byte loads (the tail is copied byte by byte).
void fill_row(const int8_t* x, int64_t width, const int8_t* input_end, __m256i pad,
              uint8_t* dst) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i lane = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
                                        31);
  int64_t iw = 0;
  for (; iw < width && x + iw + kBlock <= input_end; iw += kBlock) {
    __m256i v = _mm256_xor_si256(load256(x + iw), flip);
    if (width - iw < kBlock) {
      const __m256i keep =
          _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(width - iw)), lane);
      v = _mm256_blendv_epi8(pad, v, keep);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + iw), v);
  }
  for (; iw < width; ++iw) dst[iw] = static_cast<uint8_t>(x[iw] ^ 0x80);
}

// In-lane order of packs_epi16(packs_epi32(r0, r1), packs_epi32(r2, r3)):
// byte 4k + i of lane L is r_k's lane 4L + i. Stride 1 (r_k = pixels k +
// 4j): pixel 16L + 4i + k, so the in-lane 4x4 transpose puts lane L in
// pixel order. Stride 2 (r0 = pixels 2j, r1 = 2j + 1, r2 = 16 + 2j, r3 =
// 17 + 2j): lane L becomes pixels [8L, 8L + 8) then [16 + 8L, 24 + 8L),
// and vpermq (0, 2, 1, 3) joins the lanes' halves in order.
alignas(32) constexpr int8_t kOrderStride1[32] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10,
                                                   14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5,
                                                   9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
alignas(32) constexpr int8_t kOrderStride2[32] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9,
                                                   13, 10, 14, 11, 15, 0, 4, 1, 5, 2, 6,
                                                   3, 7, 8, 12, 9, 13, 10, 14, 11, 15};
inline __m256i order_mask(int64_t stride) {
  return _mm256_load_si256(
      reinterpret_cast<const __m256i*>(stride == 1 ? kOrderStride1 : kOrderStride2));
}

template <int kStride, bool kBias, bool kBounded>
void plane_u8(const Int8DepthwiseProblem& p, const U8Layout& l, const uint8_t* plane,
              int8_t* out, int64_t c) {
  const int8_t* k = p.weight + c * 9;
  __m256i w[3];
  int32_t weight_sum = 0;
  for (int r = 0; r < 3; ++r) {
    const uint32_t quad = (static_cast<uint32_t>(static_cast<uint8_t>(k[3 * r]))) |
                          (static_cast<uint32_t>(static_cast<uint8_t>(k[3 * r + 1])) << 8) |
                          (static_cast<uint32_t>(static_cast<uint8_t>(k[3 * r + 2])) << 16);
    w[r] = _mm256_set1_epi32(static_cast<int32_t>(quad));
    weight_sum += k[3 * r] + k[3 * r + 1] + k[3 * r + 2];
  }
  const __m256i init = _mm256_set1_epi32(-(p.in_zero_point + 128) * weight_sum);
  const __m256i ones = _mm256_set1_epi16(1);
  const Int8RequantAvx2 ep(p);
  const __m256 scale = _mm256_set1_ps(p.in_scale * p.w_scales[c]);
  const __m256 bias = _mm256_set1_ps(kBias ? p.bias[c] : 0.0f);
  const __m256i order = order_mask(kStride);
  const int64_t ow_total = p.out_width;
  const int8_t* out_end = out + p.out_height * ow_total;
  // Load offsets from a block's first tap column: stride 1 {0, 1, 2, 3},
  // stride 2 {0, 2, 32, 34} (r_k of order_mask).
  constexpr int64_t o1 = kStride == 1 ? 1 : 2, o2 = kStride == 1 ? 2 : 32,
                    o3 = kStride == 1 ? 3 : 34;
  for (int64_t oh = 0; oh < p.out_height; ++oh) {
    const uint8_t* rows = plane + oh * p.stride_h * l.row_bytes;
    int8_t* dst_row = out + oh * ow_total;
    // Last block first: its 32-byte store may run into row oh + 1, which
    // is written afterwards; never past the plane (then a copy).
    for (int64_t ow = (ow_total - 1) / kBlock * kBlock; ow >= 0; ow -= kBlock) {
      __m256i r0 = init, r1 = init, r2 = init, r3 = init;
      const uint8_t* x = rows + kStride * ow;
      for (int kh = 0; kh < 3; ++kh, x += l.row_bytes) {
        const __m256i wk = w[kh];
        auto taps = [&](int64_t offset) {
          return _mm256_madd_epi16(_mm256_maddubs_epi16(load256(x + offset), wk), ones);
        };
        r0 = _mm256_add_epi32(r0, taps(0));
        r1 = _mm256_add_epi32(r1, taps(o1));
        r2 = _mm256_add_epi32(r2, taps(o2));
        r3 = _mm256_add_epi32(r3, taps(o3));
      }
      __m256i bytes;
      if (kBounded) {
        bytes = ep.thirty_two_bounded<kBias>(r0, r1, scale, bias, r2, r3, scale, bias);
      } else {
        // eight() leaves clamped int32 values: the saturating packs are exact.
        bytes = _mm256_packs_epi16(
            _mm256_packs_epi32(ep.eight<kBias>(r0, scale, bias), ep.eight<kBias>(r1, scale, bias)),
            _mm256_packs_epi32(ep.eight<kBias>(r2, scale, bias),
                               ep.eight<kBias>(r3, scale, bias)));
      }
      bytes = _mm256_shuffle_epi8(bytes, order);
      if (kStride == 2) bytes = _mm256_permute4x64_epi64(bytes, 0xD8);
      int8_t* dst = dst_row + ow;
      if (dst + kBlock <= out_end) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), bytes);
      } else {
        alignas(32) int8_t tmp[kBlock];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), bytes);
        std::memcpy(dst, tmp, static_cast<size_t>(std::min(kBlock, ow_total - ow)));
      }
    }
  }
}

template <int kStride>
void plane_u8_dispatch(const Int8DepthwiseProblem& p, const U8Layout& l, const uint8_t* plane,
                       int8_t* out, int64_t c) {
  const bool bounded = int8_depthwise_channel_is_bounded(p, c);
  if (p.bias != nullptr) {
    if (bounded) return plane_u8<kStride, true, true>(p, l, plane, out, c);
    return plane_u8<kStride, true, false>(p, l, plane, out, c);
  }
  if (bounded) return plane_u8<kStride, false, true>(p, l, plane, out, c);
  return plane_u8<kStride, false, false>(p, l, plane, out, c);
}

}  // namespace

size_t int8_depthwise_u8_avx2_worker_bytes(const Int8DepthwiseProblem& p) {
  return u8_layout_of(p).plane_bytes;
}

void int8_depthwise_u8_avx2(const Int8DepthwiseProblem& p, int64_t plane_begin,
                            int64_t plane_end, void* worker_scratch) {
  const U8Layout l = u8_layout_of(p);
  uint8_t* buffer = static_cast<uint8_t*>(worker_scratch);
  const uint8_t pad_byte = static_cast<uint8_t>(p.in_zero_point ^ 0x80);
  // Padding rows and columns hold the same byte for every plane: written
  // once; each plane's rows overwrite only columns [pad_w, pad_w + W).
  std::memset(buffer, pad_byte, l.plane_bytes);
  const __m256i pad = _mm256_set1_epi8(static_cast<char>(pad_byte));
  const int8_t* input_end = p.input + p.planes() * p.height * p.width;
  const int64_t plane_in = p.height * p.width, plane_out = p.out_height * p.out_width;
  for (int64_t plane = plane_begin; plane < plane_end; ++plane) {
    const int8_t* x = p.input + plane * plane_in;
    for (int64_t ih = 0; ih < p.height; ++ih) {
      fill_row(x + ih * p.width, p.width, input_end, pad,
               buffer + (ih + p.pad_h) * l.row_bytes + p.pad_w);
    }
    const int64_t c = plane % p.channels;
    int8_t* out = p.out + plane * plane_out;
    if (p.stride_w == 1) {
      plane_u8_dispatch<1>(p, l, buffer, out, c);
    } else {
      plane_u8_dispatch<2>(p, l, buffer, out, c);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
