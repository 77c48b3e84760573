// AVX-512 VNNI rows of the int8 depthwise convolution (contract:
// support/int8_depthwise.h). The AVX2 path (int8_depthwise_avx2.cpp)
// widens each plane into its int16 buffer and, for maps at least
// kInt8DepthwiseVnniMinWidth wide (or 9 to 16 wide: two output rows per
// step), hands the taps to this file: 32 output pixels per step instead of 16, each tap pair interleaved per 128-bit
// lane (unpacklo/hi) and accumulated with vpdpwssd (the vpmaddwd + vpaddd
// pair of the AVX2 path in one instruction; exact int32 sums of two
// products each, |x - zx| <= 255, |w| <= 128). Lanes come out as pixels
// [8L, 8L + 4) and [8L + 4, 8L + 8) of each 128-bit lane L, which one
// vpackssdw puts back in order. The epilogue is requantize() of
// support/int8_gemm.h in the AVX2 path's float operations, 16 lanes at a
// time (or its integer form for a bounded channel), so both agree bit for
// bit; the last block of a row is stored under a byte mask.
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

constexpr int64_t kLanes = 32;

inline __m512i load512(const int16_t* p) { return _mm512_loadu_si512(p); }

// One channel's scale and bias on every lane of the shared requantize.
struct Epilogue {
  __m512 scale, bias;
  Int8DepthwiseRequantAvx512 requant;
  Epilogue(const Int8DepthwiseProblem& p, int64_t c)
      : scale(_mm512_set1_ps(p.in_scale * p.w_scales[c])),
        bias(_mm512_set1_ps(p.bias != nullptr ? p.bias[c] : 0.0f)), requant(p) {}

  // 32 output bytes in pixel order from the two accumulators.
  template <bool kBias, bool kBounded>
  __attribute__((always_inline)) __m256i thirty_two(__m512i acc_lo, __m512i acc_hi) const {
    return requant.thirty_two<kBias, kBounded>(acc_lo, scale, bias, acc_hi, scale, bias);
  }
};

// 32 int16 lanes: 16 from `a` (lanes 0-15) and 16 from `b` (lanes 16-31).
inline __m512i two_halves(const int16_t* a, const int16_t* b) {
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

template <int kPairs, bool kBias, bool kBounded, bool kTwoRows>
void plane_vnni(const Int8DepthwiseProblem& p, const Int8DepthwisePlane& w, int8_t* out,
                int64_t c) {
  const Epilogue ep(p, c);
  // Local copies of a known number of offsets and weights stay in registers
  // (the int8 stores could alias the tables).
  constexpr int kLocal = kPairs > 0 ? kPairs : 1;
  int32_t weights[kLocal];
  int64_t offsets[2 * kLocal];
  for (int i = 0; i < kPairs; ++i) weights[i] = w.weights[i];
  for (int i = 0; i < 2 * kPairs; ++i) offsets[i] = w.tap_offsets[i];
  const int32_t* wt = kPairs > 0 ? weights : w.weights;
  const int64_t* off = kPairs > 0 ? offsets : w.tap_offsets;
  const int64_t pairs = kPairs > 0 ? kPairs : w.pairs;
  const int64_t ow_total = p.out_width;
  if (kTwoRows) {
    // Rows of at most 16 pixels: row oh in lanes 0-15, row oh + 1 in lanes
    // 16-31 (the same taps, one input row stride further down), so a
    // 14-wide map (MobileNetV2) fills 28 of the 32 lanes, not 14.
    const __mmask16 row_mask = static_cast<__mmask16>((1u << ow_total) - 1u);
    const int64_t next = p.stride_h * w.row_elems;
    for (int64_t oh = 0; oh < p.out_height; oh += 2) {
      const bool second = oh + 1 < p.out_height;
      const int16_t* row_a = w.rows + oh * next;
      const int16_t* row_b = second ? row_a + next : row_a;
      __m512i acc_lo = _mm512_setzero_si512(), acc_hi = _mm512_setzero_si512();
      for (int64_t i = 0; i < pairs; ++i) {
        const __m512i a = two_halves(row_a + off[2 * i], row_b + off[2 * i]);
        const __m512i b = two_halves(row_a + off[2 * i + 1], row_b + off[2 * i + 1]);
        const __m512i wab = _mm512_set1_epi32(wt[i]);
        acc_lo = _mm512_dpwssd_epi32(acc_lo, _mm512_unpacklo_epi16(a, b), wab);
        acc_hi = _mm512_dpwssd_epi32(acc_hi, _mm512_unpackhi_epi16(a, b), wab);
      }
      const __m256i v = ep.thirty_two<kBias, kBounded>(acc_lo, acc_hi);
      _mm_mask_storeu_epi8(out + oh * ow_total, row_mask, _mm256_castsi256_si128(v));
      if (second) {
        _mm_mask_storeu_epi8(out + (oh + 1) * ow_total, row_mask, _mm256_extracti128_si256(v, 1));
      }
    }
    return;
  }
  for (int64_t oh = 0; oh < p.out_height; ++oh) {
    const int16_t* in_row = w.rows + oh * p.stride_h * w.row_elems;
    int8_t* row = out + oh * ow_total;
    for (int64_t ow = 0; ow < ow_total; ow += kLanes) {
      __m512i acc_lo = _mm512_setzero_si512(), acc_hi = _mm512_setzero_si512();
      for (int64_t i = 0; i < pairs; ++i) {
        const __m512i a = load512(in_row + ow + off[2 * i]);
        const __m512i b = load512(in_row + ow + off[2 * i + 1]);
        const __m512i wab = _mm512_set1_epi32(wt[i]);
        acc_lo = _mm512_dpwssd_epi32(acc_lo, _mm512_unpacklo_epi16(a, b), wab);
        acc_hi = _mm512_dpwssd_epi32(acc_hi, _mm512_unpackhi_epi16(a, b), wab);
      }
      const __m256i v = ep.thirty_two<kBias, kBounded>(acc_lo, acc_hi);
      const int64_t n = std::min(kLanes, ow_total - ow);
      const __mmask32 mask = n == kLanes ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
      _mm256_mask_storeu_epi8(row + ow, mask, v);
    }
  }
}

template <int kPairs, bool kTwoRows>
void plane_dispatch(const Int8DepthwiseProblem& p, const Int8DepthwisePlane& w, int8_t* out,
                    int64_t c, bool bounded) {
  if (p.bias != nullptr) {
    if (bounded) return plane_vnni<kPairs, true, true, kTwoRows>(p, w, out, c);
    return plane_vnni<kPairs, true, false, kTwoRows>(p, w, out, c);
  }
  if (bounded) return plane_vnni<kPairs, false, true, kTwoRows>(p, w, out, c);
  return plane_vnni<kPairs, false, false, kTwoRows>(p, w, out, c);
}

template <bool kTwoRows>
void pairs_dispatch(const Int8DepthwiseProblem& p, const Int8DepthwisePlane& w, int8_t* out,
                    int64_t c, bool bounded) {
  switch (w.pairs) {
    case 5: return plane_dispatch<5, kTwoRows>(p, w, out, c, bounded);    // 3x3
    case 13: return plane_dispatch<13, kTwoRows>(p, w, out, c, bounded);  // 5x5
    default: return plane_dispatch<0, kTwoRows>(p, w, out, c, bounded);
  }
}

}  // namespace

void int8_depthwise_plane_avx512vnni(const Int8DepthwiseProblem& p, const Int8DepthwisePlane& w,
                                     int8_t* out, int64_t c, bool bounded) {
  if (p.out_width <= kInt8DepthwiseVnniTwoRowsMaxWidth) {
    return pairs_dispatch<true>(p, w, out, c, bounded);
  }
  pairs_dispatch<false>(p, w, out, c, bounded);
}

}  // namespace quantized
}  // namespace torchedge
