// Channels-last loops of the int8 depthwise convolution (contract:
// support/int8_depthwise.h), for small maps: the per-plane path widens,
// pads and requantizes plane by plane, which costs more than the taps
// themselves once a plane is a few hundred pixels. Per unit of work (one
// image, a band of 32 channels, a block of output rows):
//  1. weights (once per band): the band's [32][taps] int8 weights are
//     transposed like the pixels and interleaved in tap pairs, so each
//     pair's int32 lanes line up with the pixels' (below); scale, bias and
//     boundedness (int8_depthwise_channel_is_bounded, 4 channels at a time).
//  2. transpose in: the block's padded input rows (a window: at most
//     kWindowBytes, see int8_depthwise_channel_row_blocks) are transposed
//     16 pixels x 32 channels at a time (two 16x16 byte transposes, one per
//     128-bit lane of the unpacks) and widened into the worker's buffer as
//     int16 x - zx, [rows][W + 2 pad_w][32]: one 64-byte vector per pixel.
//     Padding columns are zeroed once per call and never written, padding
//     rows zeroed per unit, so they act as x == zx.
//  3. taps: per output pixel, each pair of taps loads two pixels' vectors,
//     interleaves them (vpunpck{l,h}wd) and multiplies by the pair's
//     per-channel weights (vpmaddwd + vpaddd): exact int32 sums, lanes in
//     the unpacks' channel order, which the epilogue's packs undo.
//  4. epilogue: requantize() in the float operations of the per-plane AVX2
//     path (int8_depthwise_avx2.cpp) with per-lane scale and bias, or its
//     integer form when every channel of the band is bounded; 16 pixels'
//     int8 results go to a [16][32] tile,
//  5. transpose out: the tile is transposed back (the same 16x16 byte
//     transposes) and each channel's 16 pixels stored into its NCHW plane
//     (a partial last tile with two overlapping stores).
// With AVX-512 VNNI, steps 2-5 run 32 pixels at a time with vpdpwssd
// (int8_depthwise_channels_avx512vnni.cpp). Channels past C in the last
// band compute zeros that are not stored.
// Compiled with -mavx2 -mfma (and -ffp-contract=off: no fused epilogue).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/support/x86/int8_requant_avx2.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kBand = kInt8DepthwiseChannelBand;  // 32
constexpr int64_t kTile = 16;                          // pixels per tile

#define TE_DW_INLINE __attribute__((always_inline)) inline

TE_DW_INLINE __m128i load128(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}
TE_DW_INLINE __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
TE_DW_INLINE void store256(void* p, __m256i v) {
  _mm256_storeu_si256(static_cast<__m256i*>(p), v);
}

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

struct Layout {
  int64_t rows, cols;  // padded input rows one unit reads at most, columns
  int64_t pairs;       // ceil(taps / 2)
  size_t pixel_bytes, weight_bytes, offset_bytes, param_bytes, tile_bytes;
};

// The padded input rows that output rows [oh0, oh1) read: [first, end).
struct RowWindow {
  int64_t first, end;
};

RowWindow window_of(const Int8DepthwiseProblem& p, int64_t oh0, int64_t oh1) {
  const int64_t end = (oh1 - 1) * p.stride_h + (p.kernel_h - 1) * p.dilation_h + 1;
  return {oh0 * p.stride_h, std::min(end, p.height + 2 * p.pad_h)};
}

Layout layout_of(const Int8DepthwiseProblem& p, int64_t row_blocks) {
  Layout l;
  const int64_t block_rows = (p.out_height + row_blocks - 1) / row_blocks;  // the largest
  const RowWindow window = window_of(p, 0, block_rows);
  l.rows = window.end - window.first;
  l.cols = p.width + 2 * p.pad_w;
  l.pairs = (p.taps() + 1) / 2;
  l.pixel_bytes = round_up_64(static_cast<size_t>(l.rows * l.cols * kBand) * sizeof(int16_t));
  l.weight_bytes = static_cast<size_t>(l.pairs * kBand) * sizeof(int32_t);
  l.offset_bytes = round_up_64(static_cast<size_t>(2 * l.pairs) * sizeof(int64_t));
  l.param_bytes = 2 * kBand * sizeof(float);  // scale, bias
  l.tile_bytes = 2 * kTile * kBand;           // 32 pixels for the AVX-512 steps
  return l;
}

// The worker's scratch: the band's pixels, its weights, the tap offsets,
// scale and bias, the output tile (each 64-byte aligned).
struct Workspace {
  int16_t* pixels;
  int32_t* weights;
  int64_t* tap_offsets;
  float* scale;
  float* bias;
  int8_t* tile;
};

Workspace workspace_of(const Layout& l, void* scratch) {
  char* at = static_cast<char*>(scratch);
  Workspace w;
  w.pixels = reinterpret_cast<int16_t*>(at);
  at += l.pixel_bytes;
  w.weights = reinterpret_cast<int32_t*>(at);
  at += l.weight_bytes;
  w.tap_offsets = reinterpret_cast<int64_t*>(at);
  at += l.offset_bytes;
  w.scale = reinterpret_cast<float*>(at);
  w.bias = w.scale + kBand;
  at += l.param_bytes;
  w.tile = reinterpret_cast<int8_t*>(at);
  return w;
}

// Transposes r[k] = [row k | row k + 16] (16 bytes each) in place into
// r[j] = [column j of rows 0-15 | column j of rows 16-31]: two 16x16 byte
// transposes, one per 128-bit lane.
TE_DW_INLINE void transpose_16x16x2(__m256i r[16]) {
  __m256i a[16], b[16];
#pragma GCC unroll 16
  for (int i = 0; i < 8; ++i) {  // columns 0-7 / 8-15 of rows 2i, 2i + 1
    a[2 * i] = _mm256_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm256_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 16
  for (int j = 0; j < 4; ++j) {  // b[4j + k]: columns 4k..4k+3 of rows 4j..4j+3
    b[4 * j] = _mm256_unpacklo_epi16(a[4 * j], a[4 * j + 2]);
    b[4 * j + 1] = _mm256_unpackhi_epi16(a[4 * j], a[4 * j + 2]);
    b[4 * j + 2] = _mm256_unpacklo_epi16(a[4 * j + 1], a[4 * j + 3]);
    b[4 * j + 3] = _mm256_unpackhi_epi16(a[4 * j + 1], a[4 * j + 3]);
  }
#pragma GCC unroll 16
  for (int m = 0; m < 2; ++m) {  // a[8m + 2k + h]: columns 4k + 2h, +1 of rows 8m..8m+7
#pragma GCC unroll 16
    for (int k = 0; k < 4; ++k) {
      a[8 * m + 2 * k] = _mm256_unpacklo_epi32(b[8 * m + k], b[8 * m + 4 + k]);
      a[8 * m + 2 * k + 1] = _mm256_unpackhi_epi32(b[8 * m + k], b[8 * m + 4 + k]);
    }
  }
#pragma GCC unroll 16
  for (int q = 0; q < 8; ++q) {  // columns 2q, 2q + 1 of all rows
    r[2 * q] = _mm256_unpacklo_epi64(a[q], a[8 + q]);
    r[2 * q + 1] = _mm256_unpackhi_epi64(a[q], a[8 + q]);
  }
}

// Weights, scale, bias and boundedness of channels [c0, c0 + cn): the
// band's [32][taps] int8 weights transposed 16 taps at a time, like the
// pixels, so each pair's two taps interleave exactly as the pixels do.
bool pack_band(const Int8DepthwiseProblem& p, const Workspace& w, int64_t c0, int64_t cn) {
  const int64_t taps = p.taps();
  const int8_t* k0 = p.weight + c0 * taps;
  const int8_t* weight_end = p.weight + p.channels * taps;
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  alignas(16) int32_t abs_sums[kBand] = {};  // sum |w| per channel (<= 128 * 256)
  for (int64_t g = 0; g < taps; g += 16) {
    // Taps [g, g + 16) of channel k, taps past the last zeroed.
    const __m128i inside = _mm_cmpgt_epi8(
        _mm_set1_epi8(static_cast<int8_t>(std::min<int64_t>(16, taps - g))), iota);
    auto row = [&](int64_t k) {
      if (k >= cn) return _mm_setzero_si128();
      const int8_t* at = k0 + k * taps + g;
      __m128i v;
      if (at + 16 <= weight_end) {
        v = load128(at);
      } else {
        alignas(16) int8_t tmp[16] = {};
        std::memcpy(tmp, at, static_cast<size_t>(weight_end - at));
        v = load128(tmp);
      }
      v = _mm_and_si128(v, inside);
      const __m128i sad = _mm_sad_epu8(_mm_abs_epi8(v), _mm_setzero_si128());  // |-128| = 128u
      abs_sums[k] += _mm_cvtsi128_si32(sad) + _mm_extract_epi32(sad, 2);
      return v;
    };
    __m256i r[16];
    for (int k = 0; k < 16; ++k) {
      r[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(row(k)), row(k + 16), 1);
    }
    transpose_16x16x2(r);
    for (int t = 0; t < 16 && g + t < taps; t += 2) {
      int32_t* wt = w.weights + (g + t) / 2 * kBand;
      const __m256i a0 = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(r[t]));
      const __m256i a1 = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(r[t], 1));
      const __m256i b0 = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(r[t + 1]));
      const __m256i b1 = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(r[t + 1], 1));
      store256(wt, _mm256_unpacklo_epi16(a0, b0));
      store256(wt + 8, _mm256_unpacklo_epi16(a1, b1));
      store256(wt + 16, _mm256_unpackhi_epi16(a0, b0));
      store256(wt + 24, _mm256_unpackhi_epi16(a1, b1));
    }
  }
  // Scale and bias in channel order (0 past cn), then in the lane order:
  // lo lanes 4m..4m+3 are channels 8m..8m+3, hi lanes 4m.. channels 8m+4..
  alignas(32) float scale[kBand] = {}, bias[kBand] = {};
  for (int64_t ch = 0; ch < cn; ++ch) {
    scale[ch] = p.in_scale * p.w_scales[c0 + ch];  // as requantize()
    if (p.bias != nullptr) bias[ch] = p.bias[c0 + ch];
  }
  for (int64_t m = 0; m < 4; ++m) {
    std::memcpy(w.scale + 4 * m, scale + 8 * m, 16);
    std::memcpy(w.scale + 16 + 4 * m, scale + 8 * m + 4, 16);
    std::memcpy(w.bias + 4 * m, bias + 8 * m, 16);
    std::memcpy(w.bias + 16 + 4 * m, bias + 8 * m + 4, 16);
  }
  // int8_depthwise_channel_is_bounded's test in its operation order, 4
  // channels at a time (channels past cn: scale 0, bias 0, bounded).
  const __m256d inf = _mm256_set1_pd(HUGE_VAL), sign = _mm256_set1_pd(-0.0);
  const __m256d inv = _mm256_set1_pd(static_cast<double>(p.inv_out_scale));
  __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  for (int64_t ch = 0; ch < kBand; ch += 4) {
    const __m256d s = _mm256_andnot_pd(sign, _mm256_cvtps_pd(_mm_load_ps(scale + ch)));
    const __m256d b = _mm256_andnot_pd(sign, _mm256_cvtps_pd(_mm_load_ps(bias + ch)));
    const __m128i sums = _mm_load_si128(reinterpret_cast<const __m128i*>(abs_sums + ch));
    __m256d bound = _mm256_mul_pd(_mm256_set1_pd(255.0), _mm256_cvtepi32_pd(sums));
    bound = _mm256_add_pd(_mm256_mul_pd(bound, s), b);
    bound = _mm256_mul_pd(_mm256_mul_pd(bound, inv), _mm256_set1_pd(1.01));
    bound = _mm256_add_pd(bound, _mm256_set1_pd(1.0));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(s, inf, _CMP_LT_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(b, inf, _CMP_LT_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(bound, _mm256_set1_pd(16384.0), _CMP_LT_OQ));
  }
  return _mm256_movemask_pd(ok) == 0xf;
}

// Input pixels [q_begin, q_end) (flat ih * W + iw) of the band's channels
// [0, cn) at x (channel k at x + k * H * W) into the band's pixels.
void transpose_in(const Int8DepthwiseProblem& p, const Int8DepthwiseBand& b, const int8_t* x,
                  int64_t cn, int64_t q_begin, int64_t q_end, const int8_t* input_end) {
  const int64_t plane = p.height * p.width;
  const __m256i zx = _mm256_set1_epi16(static_cast<int16_t>(p.in_zero_point));
  // 16 bytes of channel k from pixel q: a full load while it stays inside
  // the input tensor (it may read the next row or plane), else a copy.
  auto row = [&](int64_t k, int64_t q) {
    if (k >= cn) return _mm_setzero_si128();
    const int8_t* at = x + k * plane + q;
    if (at + kTile <= input_end) return load128(at);
    alignas(16) int8_t tmp[kTile] = {};
    std::memcpy(tmp, at, static_cast<size_t>(input_end - at));
    return load128(tmp);
  };
  int64_t iw = q_begin % p.width;
  const int64_t row0 = q_begin / p.width + p.pad_h - b.first_row;  // window row
  int16_t* dst = b.pixels + (row0 * b.row_pixels + iw + p.pad_w) * kBand;
  const int64_t row_skip = 2 * p.pad_w * kBand;
  for (int64_t q = q_begin; q < q_end; q += kTile) {
    __m256i r[16];
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) {
      r[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(row(k, q)), row(k + 16, q), 1);
    }
    transpose_16x16x2(r);
    const int64_t count = std::min(kTile, q_end - q);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      if (j == count) break;
      store256(dst, _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(r[j])), zx));
      store256(dst + 16,
               _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm256_extracti128_si256(r[j], 1)), zx));
      dst += kBand;
      if (++iw == p.width) {
        iw = 0;
        dst += row_skip;
      }
    }
  }
}

// Stores bytes [0, count) of 16-byte vectors (0 < count < 16) with two
// overlapping stores of the widest power of two <= count.
struct PartialStore {
  int64_t count, width;
  __m128i tail;  // pshufb: byte i <- byte i + count - width

  explicit PartialStore(int64_t n) : count(n) {
    width = n >= 8 ? 8 : (n >= 4 ? 4 : (n >= 2 ? 2 : 1));
    alignas(16) int8_t idx[16];
    for (int64_t i = 0; i < 16; ++i) {
      idx[i] = static_cast<int8_t>(std::min<int64_t>(i + n - width, 15));
    }
    tail = _mm_load_si128(reinterpret_cast<const __m128i*>(idx));
  }

  TE_DW_INLINE void store(int8_t* dst, __m128i v) const {
    const __m128i t = _mm_shuffle_epi8(v, tail);
    int8_t* end = dst + count - width;
    switch (width) {
      case 8:
        _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), v);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(end), t);
        return;
      case 4: {
        const int32_t a = _mm_cvtsi128_si32(v), b = _mm_cvtsi128_si32(t);
        std::memcpy(dst, &a, 4);
        std::memcpy(end, &b, 4);
        return;
      }
      case 2: {
        const int16_t a = static_cast<int16_t>(_mm_cvtsi128_si32(v));
        const int16_t b = static_cast<int16_t>(_mm_cvtsi128_si32(t));
        std::memcpy(dst, &a, 2);
        std::memcpy(end, &b, 2);
        return;
      }
      default: *dst = static_cast<int8_t>(_mm_cvtsi128_si32(v));
    }
  }
};

// The tile's first `count` pixels (rows of 32 channels) into channels
// [0, cn) of the output planes at out (channel k at out + k * plane_out).
void transpose_out(const int8_t* tile, int8_t* out, int64_t plane_out, int64_t cn,
                   int64_t count) {
  __m256i r[16];
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) r[j] = load256(tile + j * kBand);
  transpose_16x16x2(r);
  if (count == kTile) {
    for (int k = 0; k < 16; ++k) {
      if (k >= cn) break;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * plane_out),
                       _mm256_castsi256_si128(r[k]));
      if (k + 16 < cn) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (k + 16) * plane_out),
                         _mm256_extracti128_si256(r[k], 1));
      }
    }
    return;
  }
  const PartialStore part(count);
  for (int k = 0; k < 16; ++k) {
    if (k >= cn) break;
    part.store(out + k * plane_out, _mm256_castsi256_si128(r[k]));
    if (k + 16 < cn) part.store(out + (k + 16) * plane_out, _mm256_extracti128_si256(r[k], 1));
  }
}


// Output pixels [q0, q0 + count) of a band into the tile (AVX2: per pixel
// 32 channels as two 16-channel halves, four accumulators; weights, scale
// and bias as memory operands, 16 ymm registers hold no more).
template <int kPairs, bool kBias, bool kBounded>
void tile_avx2(const Int8DepthwiseProblem& p, const Int8DepthwiseBand& b, int64_t q0,
               int64_t count, int8_t* tile) {
  const Int8RequantAvx2 ep(p);
  constexpr int kLocal = kPairs > 0 ? kPairs : 1;
  int64_t offsets[2 * kLocal];
  for (int i = 0; i < 2 * kPairs; ++i) offsets[i] = b.tap_offsets[i];
  const int64_t* off = kPairs > 0 ? offsets : b.tap_offsets;
  const int64_t pairs = kPairs > 0 ? kPairs : b.pairs;
  const int32_t* weights = b.weights;
  const float* scale = b.scale;
  const float* bias = b.bias;
  const int64_t ow_total = p.out_width;
  const int64_t pixel_step = p.stride_w * kBand, row_step = p.stride_h * b.row_pixels * kBand;
  int64_t ow = q0 % ow_total;
  const int16_t* row =
      b.pixels + ((q0 / ow_total) * p.stride_h - b.first_row) * b.row_pixels * kBand;
  for (int64_t j = 0; j < count; ++j) {
    const int16_t* at = row + ow * pixel_step;
    __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (int64_t i = 0; i < pairs; ++i) {
      const int16_t* ta = at + off[2 * i];
      const int16_t* tb = at + off[2 * i + 1];
      const int32_t* wt = weights + i * kBand;
      const __m256i a0 = load256(ta), a1 = load256(ta + 16);
      const __m256i b0 = load256(tb), b1 = load256(tb + 16);
      acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(_mm256_unpacklo_epi16(a0, b0), load256(wt)));
      acc1 = _mm256_add_epi32(acc1,
                              _mm256_madd_epi16(_mm256_unpackhi_epi16(a0, b0), load256(wt + 16)));
      acc2 = _mm256_add_epi32(acc2,
                              _mm256_madd_epi16(_mm256_unpacklo_epi16(a1, b1), load256(wt + 8)));
      acc3 = _mm256_add_epi32(acc3,
                              _mm256_madd_epi16(_mm256_unpackhi_epi16(a1, b1), load256(wt + 24)));
      // Keep the four running sums in registers: without this GCC 12
      // reassociates the 20 products of a 3x3 into a tree and spills 9 ymm
      // per pixel (as with vpdpbusd, int8_conv_avx512vnni.cpp's dpbusd()).
      asm("" : "+x"(acc0), "+x"(acc1), "+x"(acc2), "+x"(acc3));
    }
    // Channels 0-15: lo lanes 0-7, hi lanes 16-23; 16-31: lo 8-15, hi 24-31.
    const __m256 s0[2] = {_mm256_load_ps(scale), _mm256_load_ps(scale + 16)};
    const __m256 b0[2] = {_mm256_load_ps(bias), _mm256_load_ps(bias + 16)};
    const __m256 s1[2] = {_mm256_load_ps(scale + 8), _mm256_load_ps(scale + 24)};
    const __m256 b1[2] = {_mm256_load_ps(bias + 8), _mm256_load_ps(bias + 24)};
    int8_t* dst = tile + j * kBand;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                     ep.sixteen<kBias, kBounded>(acc0, s0[0], b0[0], acc1, s0[1], b0[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16),
                     ep.sixteen<kBias, kBounded>(acc2, s1[0], b1[0], acc3, s1[1], b1[1]));
    if (++ow == ow_total) {
      ow = 0;
      row += row_step;
    }
  }
}

using TileFn = void (*)(const Int8DepthwiseProblem&, const Int8DepthwiseBand&, int64_t, int64_t,
                        int8_t*);

template <int kPairs>
TileFn tile_fn_of(bool bias, bool bounded) {
  if (bias) return bounded ? tile_avx2<kPairs, true, true> : tile_avx2<kPairs, true, false>;
  return bounded ? tile_avx2<kPairs, false, true> : tile_avx2<kPairs, false, false>;
}

TileFn avx2_tile_fn(int64_t pairs, bool bias, bool bounded) {
  switch (pairs) {
    case 5: return tile_fn_of<5>(bias, bounded);  // 3x3
    default: return tile_fn_of<0>(bias, bounded);
  }
}

}  // namespace

int64_t int8_depthwise_channel_row_blocks(const Int8DepthwiseProblem& p, int64_t threads) {
  // Blocks whose padded input rows take at most kWindowBytes (the scratch
  // stays small and in L2: 15 output rows of a 112-wide 3x3 stride-1 map;
  // 28-wide and smaller maps in one block) ...
  constexpr int64_t kWindowBytes = 128 * 1024;
  const int64_t row_bytes = (p.width + 2 * p.pad_w) * kBand * static_cast<int64_t>(sizeof(int16_t));
  const int64_t rows = kWindowBytes / row_bytes - (p.kernel_h - 1) * p.dilation_h - 1;
  const int64_t block_rows = std::max<int64_t>(1, rows / p.stride_h + 1);
  int64_t blocks = (p.out_height + block_rows - 1) / block_rows;
  // ... and with threads at least 8 units per thread, so the last unit's
  // share of a thread's work (the imbalance) stays small.
  if (threads > 1) {
    const int64_t bands = (p.channels + kBand - 1) / kBand;
    const int64_t base = std::max<int64_t>(1, p.batch * bands);
    blocks = std::max(blocks, (8 * threads + base - 1) / base);
  }
  return std::max<int64_t>(1, std::min(blocks, p.out_height));
}

size_t int8_depthwise_channels_worker_bytes(const Int8DepthwiseProblem& p, int64_t row_blocks) {
  const Layout l = layout_of(p, row_blocks);
  return l.pixel_bytes + l.weight_bytes + l.offset_bytes + l.param_bytes + l.tile_bytes;
}

void int8_depthwise_channels(const Int8DepthwiseProblem& p, int64_t row_blocks,
                             int64_t unit_begin, int64_t unit_end, void* worker_scratch) {
  if (unit_begin >= unit_end) return;
  const Layout l = layout_of(p, row_blocks);
  const Workspace w = workspace_of(l, worker_scratch);
  // Padding columns (and rows, below) stay zero: the transposes write only
  // input pixels.
  std::memset(w.pixels, 0, l.pixel_bytes);
  std::memset(w.tile, 0, l.tile_bytes);
  const int64_t taps = p.taps();
  for (int64_t kh = 0, t = 0; kh < p.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < p.kernel_w; ++kw, ++t) {
      w.tap_offsets[t] = (kh * p.dilation_h * l.cols + kw * p.dilation_w) * kBand;
    }
  }
  if (taps < 2 * l.pairs) w.tap_offsets[taps] = w.tap_offsets[taps - 1];  // weight 0
  const bool vnni = quant_isa() == QuantIsa::kAvx512Vnni;
  const int64_t bands = (p.channels + kBand - 1) / kBand;
  const int64_t plane_in = p.height * p.width, plane_out = p.out_height * p.out_width;
  const int8_t* input_end = p.input + p.planes() * plane_in;
  const size_t row_bytes = static_cast<size_t>(l.cols * kBand) * sizeof(int16_t);
  Int8DepthwiseBand band{w.pixels, l.cols, 0, w.tap_offsets, w.weights, w.scale, w.bias,
                         l.pairs, false};
  TileFn avx2_tile = nullptr;
  int64_t packed = -1;  // the band whose weights are in the scratch
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t r = u % row_blocks, b = (u / row_blocks) % bands;
    const int64_t n = u / (row_blocks * bands);
    const int64_t c0 = b * kBand, cn = std::min(kBand, p.channels - c0);
    if (b != packed) {
      band.bounded = pack_band(p, w, c0, cn);
      avx2_tile = avx2_tile_fn(l.pairs, p.bias != nullptr, band.bounded);
      packed = b;
    }
    const int64_t oh0 = r * p.out_height / row_blocks, oh1 = (r + 1) * p.out_height / row_blocks;
    if (oh0 == oh1) continue;
    // The block's padded rows [first, end) in window rows [0, end - first):
    // zero the padding rows (an earlier unit may have left data there),
    // transpose the input rows [ih0, ih1).
    const RowWindow window = window_of(p, oh0, oh1);
    band.first_row = window.first;
    const int64_t ih0 = std::max<int64_t>(0, window.first - p.pad_h);
    const int64_t ih1 = std::min<int64_t>(p.height, window.end - p.pad_h);
    for (int64_t row = window.first; row < window.end; ++row) {
      if (row >= p.pad_h && row < p.pad_h + p.height) continue;
      std::memset(w.pixels + (row - window.first) * l.cols * kBand, 0, row_bytes);
    }
    const int8_t* x = p.input + (n * p.channels + c0) * plane_in;
    int8_t* out = p.out + (n * p.channels + c0) * plane_out;
    const int64_t q_begin = oh0 * p.out_width, q_end = oh1 * p.out_width;
    if (vnni) {
      if (ih0 < ih1) {
        int8_depthwise_channel_input_avx512vnni(p, band, x, cn, ih0 * p.width, ih1 * p.width);
      }
      int8_depthwise_channel_output_avx512vnni(p, band, out, cn, q_begin, q_end, w.tile);
      continue;
    }
    if (ih0 < ih1) transpose_in(p, band, x, cn, ih0 * p.width, ih1 * p.width, input_end);
    for (int64_t q = q_begin; q < q_end; q += kTile) {
      const int64_t count = std::min(kTile, q_end - q);
      avx2_tile(p, band, q, count, w.tile);
      transpose_out(w.tile, out + q, plane_out, cn, count);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
