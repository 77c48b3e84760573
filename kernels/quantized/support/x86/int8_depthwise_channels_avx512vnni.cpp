// AVX-512 VNNI steps of the channels-last int8 depthwise loops (contract:
// support/int8_depthwise.h; the driver, the weights and the AVX2 steps in
// int8_depthwise_channels_avx2.cpp), 32 pixels at a time:
//  - input: 32 pixels x 32 channels per step, each channel's 32 bytes
//    placed as [px 0-15 of k | of k + 16 | px 16-31 of k | of k + 16] so
//    one 4-stage unpack transpose (four 16x16 byte transposes) leaves
//    pixels j and j + 16 in one zmm; widened to int16 - zx, one zmm per
//    pixel. Half the shuffles per pixel of the AVX2 form.
//  - taps: per output pixel, each pair of taps loads the two input pixels'
//    32 channels (one zmm each), interleaves them per 128-bit lane
//    (vpunpck{l,h}wd) and accumulates with vpdpwssd into two zmm of 16
//    int32 sums (the "lo" and "hi" lane orders; exact: |x - zx| <= 255,
//    |w| <= 128). The epilogue is requantize() in the float operations of
//    int8_depthwise_avx512vnni.cpp with per-lane scale and bias (or its
//    integer form for a bounded band); vpackssdw puts the 32 channels back
//    in order. 32 pixels' bytes go to the [32][32] tile.
//  - output: the tile transposed back the same way, each channel's 32
//    pixels stored (byte-masked for a partial step).
// Compiled with -mavx512f/bw/vl/vnni (and -ffp-contract=off).
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -Wmaybe-uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>

#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/x86/int8_depthwise_requant_avx512.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kBand = kInt8DepthwiseChannelBand;  // 32
constexpr int64_t kStep = 32;                          // pixels per step

#define TE_DW_INLINE __attribute__((always_inline)) inline

// acc += vpdpwssd(x, w), the accumulator tied to its register (with
// _mm512_dpwssd_epi32 GCC 12 copies accumulators around each instruction:
// see dpbusd() in int8_conv_avx512vnni.cpp).
TE_DW_INLINE __m512i dpwssd(__m512i acc, __m512i x, __m512i w) {
  asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
  return acc;
}

// Transposes r[k] = [a_k | b_k | c_k | d_k] (16 bytes each, for four 16x16
// byte matrices whose row k are a_k, b_k, c_k, d_k) in place into r[j] =
// [column j of a | of b | of c | of d].
TE_DW_INLINE void transpose_4x16x16(__m512i r[16]) {
  __m512i a[16], b[16];
#pragma GCC unroll 16
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = _mm512_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm512_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 16
  for (int j = 0; j < 4; ++j) {
    b[4 * j] = _mm512_unpacklo_epi16(a[4 * j], a[4 * j + 2]);
    b[4 * j + 1] = _mm512_unpackhi_epi16(a[4 * j], a[4 * j + 2]);
    b[4 * j + 2] = _mm512_unpacklo_epi16(a[4 * j + 1], a[4 * j + 3]);
    b[4 * j + 3] = _mm512_unpackhi_epi16(a[4 * j + 1], a[4 * j + 3]);
  }
#pragma GCC unroll 16
  for (int m = 0; m < 2; ++m) {
#pragma GCC unroll 16
    for (int k = 0; k < 4; ++k) {
      a[8 * m + 2 * k] = _mm512_unpacklo_epi32(b[8 * m + k], b[8 * m + 4 + k]);
      a[8 * m + 2 * k + 1] = _mm512_unpackhi_epi32(b[8 * m + k], b[8 * m + 4 + k]);
    }
  }
#pragma GCC unroll 16
  for (int q = 0; q < 8; ++q) {
    r[2 * q] = _mm512_unpacklo_epi64(a[q], a[8 + q]);
    r[2 * q + 1] = _mm512_unpackhi_epi64(a[q], a[8 + q]);
  }
}

// Bytes [0, n) of a 32-byte step (n <= 32).
TE_DW_INLINE __mmask32 first(int64_t n) {
  return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
}

// [lo of x | lo of y | hi of x | hi of y] (128-bit lanes of 256-bit x, y).
TE_DW_INLINE __m512i interleave_lanes(__m256i x, __m256i y) {
  const __m512i xy = _mm512_inserti64x4(_mm512_castsi256_si512(x), y, 1);
  return _mm512_shuffle_i64x2(xy, xy, _MM_SHUFFLE(3, 1, 2, 0));
}

// The band's per-lane scales and biases on the shared requantize.
struct Epilogue {
  __m512 scale_lo, scale_hi, bias_lo, bias_hi;
  Int8DepthwiseRequantAvx512 requant;
  Epilogue(const Int8DepthwiseProblem& p, const Int8DepthwiseBand& b)
      : scale_lo(_mm512_load_ps(b.scale)), scale_hi(_mm512_load_ps(b.scale + 16)),
        bias_lo(_mm512_load_ps(b.bias)), bias_hi(_mm512_load_ps(b.bias + 16)), requant(p) {}

  // The 32 channels' bytes in order from the lo and hi sums.
  template <bool kBias, bool kBounded>
  TE_DW_INLINE __m256i thirty_two(__m512i acc_lo, __m512i acc_hi) const {
    return requant.thirty_two<kBias, kBounded>(acc_lo, scale_lo, bias_lo, acc_hi, scale_hi,
                                               bias_hi);
  }
};

// Output pixels [q_begin, q_end) of a band: 32 at a time into the tile,
// then transposed into channels [0, cn) of the planes at out.
template <int kPairs, bool kBias, bool kBounded>
void output_vnni(const Int8DepthwiseProblem& p, const Int8DepthwiseBand& b, int8_t* out,
                 int64_t cn, int64_t q_begin, int64_t q_end, int8_t* tile) {
  const Epilogue ep(p, b);
  // A known number of pairs: offsets and weights in registers.
  constexpr int kLocal = kPairs > 0 ? kPairs : 1;
  int64_t offsets[2 * kLocal];
  __m512i w_lo[kLocal], w_hi[kLocal];
  for (int i = 0; i < kPairs; ++i) {
    offsets[2 * i] = b.tap_offsets[2 * i];
    offsets[2 * i + 1] = b.tap_offsets[2 * i + 1];
    w_lo[i] = _mm512_load_si512(b.weights + i * kBand);
    w_hi[i] = _mm512_load_si512(b.weights + i * kBand + 16);
  }
  const int64_t* off = kPairs > 0 ? offsets : b.tap_offsets;
  const int64_t pairs = kPairs > 0 ? kPairs : b.pairs;
  const int64_t ow_total = p.out_width, plane_out = p.out_height * p.out_width;
  const int64_t pixel_step = p.stride_w * kBand, row_step = p.stride_h * b.row_pixels * kBand;
  int64_t ow = q_begin % ow_total;
  const int16_t* row =
      b.pixels + ((q_begin / ow_total) * p.stride_h - b.first_row) * b.row_pixels * kBand;
  for (int64_t q = q_begin; q < q_end; q += kStep) {
    const int64_t count = std::min(kStep, q_end - q);
    for (int64_t j = 0; j < count; ++j) {
      const int16_t* at = row + ow * pixel_step;
      __m512i acc_lo = _mm512_setzero_si512(), acc_hi = _mm512_setzero_si512();
      for (int64_t i = 0; i < pairs; ++i) {
        const __m512i x = _mm512_loadu_si512(at + off[2 * i]);
        const __m512i y = _mm512_loadu_si512(at + off[2 * i + 1]);
        const __m512i wl = kPairs > 0 ? w_lo[i] : _mm512_load_si512(b.weights + i * kBand);
        const __m512i wh = kPairs > 0 ? w_hi[i] : _mm512_load_si512(b.weights + i * kBand + 16);
        acc_lo = dpwssd(acc_lo, _mm512_unpacklo_epi16(x, y), wl);
        acc_hi = dpwssd(acc_hi, _mm512_unpackhi_epi16(x, y), wh);
      }
      _mm256_store_si256(reinterpret_cast<__m256i*>(tile + j * kBand),
                         ep.thirty_two<kBias, kBounded>(acc_lo, acc_hi));
      if (++ow == ow_total) {
        ow = 0;
        row += row_step;
      }
    }
    // Rows j, j + 16 of the tile as [ch 0-15 | ch 16-31] of each: after the
    // transpose r[k] = [ch k px 0-15 | ch k + 16 px 0-15 | ch k px 16-31 |
    // ch k + 16 px 16-31]. Rows past count hold stale pixels, not stored.
    __m512i r[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(tile + j * kBand));
      const __m256i hi =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(tile + (j + 16) * kBand));
      r[j] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
    transpose_4x16x16(r);
    const __mmask32 mask = first(count);
    int8_t* dst = out + q;
    for (int k = 0; k < 16 && k < cn; ++k) {
      const __m512i v = _mm512_shuffle_i64x2(r[k], r[k], _MM_SHUFFLE(3, 1, 2, 0));
      _mm256_mask_storeu_epi8(dst + k * plane_out, mask, _mm512_castsi512_si256(v));
      if (k + 16 < cn) {
        _mm256_mask_storeu_epi8(dst + (k + 16) * plane_out, mask, _mm512_extracti64x4_epi64(v, 1));
      }
    }
  }
}

template <int kPairs>
void output_dispatch(const Int8DepthwiseProblem& p, const Int8DepthwiseBand& b, int8_t* out,
                     int64_t cn, int64_t q_begin, int64_t q_end, int8_t* tile) {
  if (p.bias != nullptr) {
    if (b.bounded) return output_vnni<kPairs, true, true>(p, b, out, cn, q_begin, q_end, tile);
    return output_vnni<kPairs, true, false>(p, b, out, cn, q_begin, q_end, tile);
  }
  if (b.bounded) return output_vnni<kPairs, false, true>(p, b, out, cn, q_begin, q_end, tile);
  return output_vnni<kPairs, false, false>(p, b, out, cn, q_begin, q_end, tile);
}

}  // namespace

void int8_depthwise_channel_input_avx512vnni(const Int8DepthwiseProblem& p,
                                             const Int8DepthwiseBand& b, const int8_t* x,
                                             int64_t cn, int64_t q_begin, int64_t q_end) {
  const int64_t plane = p.height * p.width;
  const __m512i zx = _mm512_set1_epi16(static_cast<int16_t>(p.in_zero_point));
  int64_t iw = q_begin % p.width;
  const int64_t row0 = q_begin / p.width + p.pad_h - b.first_row;  // window row
  int16_t* dst = b.pixels + (row0 * b.row_pixels + iw + p.pad_w) * kBand;
  const int64_t row_skip = 2 * p.pad_w * kBand;
  for (int64_t q = q_begin; q < q_end; q += kStep) {
    const int64_t count = std::min(kStep, q_end - q);
    const __mmask32 mask = first(count);  // masked loads stay inside the plane
    auto channel = [&](int64_t k) {
      return k < cn ? _mm256_maskz_loadu_epi8(mask, x + k * plane + q) : _mm256_setzero_si256();
    };
    __m512i r[16];
#pragma GCC unroll 16
    for (int k = 0; k < 16; ++k) r[k] = interleave_lanes(channel(k), channel(k + 16));
    transpose_4x16x16(r);
    // r[j] = [px j: ch 0-15 | ch 16-31 | px j + 16: ch 0-15 | ch 16-31].
    auto put = [&](__m256i px) {
      _mm512_store_si512(dst, _mm512_sub_epi16(_mm512_cvtepi8_epi16(px), zx));
      dst += kBand;
      if (++iw == p.width) {
        iw = 0;
        dst += row_skip;
      }
    };
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      if (j == count) break;
      put(_mm512_castsi512_si256(r[j]));
    }
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      if (j + 16 >= count) break;
      put(_mm512_extracti64x4_epi64(r[j], 1));
    }
  }
}

void int8_depthwise_channel_output_avx512vnni(const Int8DepthwiseProblem& p,
                                              const Int8DepthwiseBand& b, int8_t* out,
                                              int64_t cn, int64_t q_begin, int64_t q_end,
                                              int8_t* tile) {
  switch (b.pairs) {
    case 5: return output_dispatch<5>(p, b, out, cn, q_begin, q_end, tile);  // 3x3
    default: return output_dispatch<0>(p, b, out, cn, q_begin, q_end, tile);
  }
}

}  // namespace quantized
}  // namespace torchedge
