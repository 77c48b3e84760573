// AVX2 path of the int8 depthwise convolution (contract:
// support/int8_depthwise.h). Per (image, channel) plane:
//  1. widen: the plane is copied once into the worker's int16 buffer as
//     x - zx with zero padding (so the padding acts as x == zx), each
//     padded row split by column phase: element j of phase ph is padded
//     column j * stride_w + ph. Output pixel ow's tap kw then reads phase
//     (kw * dw) % sw at index ow + (kw * dw) / sw: 16 output pixels of a tap
//     are 16 contiguous int16, whatever the stride and dilation. Padding
//     positions are zeroed once per call and never written afterwards.
//  2. taps in pairs: the two taps' 16-lane vectors are interleaved
//     (unpacklo/hi, per 128-bit lane) and vpmaddwd'ed with the pair's
//     weights broadcast as (w_a, w_b): 8 exact int32 sums of two products
//     each (|x - zx| <= 255, |w| <= 128). An odd last tap pairs with
//     itself and weight 0. Lanes end up as [0-3 | 8-11] and [4-7 | 12-15],
//     which the epilogue's two packs put back in order.
//  3. epilogue: requantize() of support/int8_gemm.h, 8 lanes at a time, in
//     the same float operations (mul, add, mul, round to nearest even, add,
//     clamp; NaN -> 0); or, for a channel whose |y * inv_out_scale| is
//     provably < 2^14 and never NaN (int8_depthwise_channel_is_bounded),
//     the same result in integers: cvtps2dq rounds half to even like
//     round_half_even, then saturating int16 add of the zero point,
//     saturating packs, max/min.
// 3x3 and 5x5 filters get unrolled tap loops; 3x3 stride 1 (dilation 1)
// computes two output rows per pass (TwoRows3x3: 6 interleaves instead of
// 10 per row and 16 pixels). Maps at most 8 wide (the 7x7
// layers) put two output rows in the 16 lanes (each 128-bit half loads its
// own row), so half the lanes are not wasted. 16-byte output stores may run
// ahead into rows written later, never past the plane.
// With AVX-512 VNNI, maps at least kInt8DepthwiseVnniMinWidth wide, or 9 to
// 16 wide (two output rows per 32 lanes), take steps 2-3 from
// int8_depthwise_avx512vnni.cpp instead (MobileNetV2's 112- and 56-wide
// layers 10-30 % faster, its seven 14-wide ones ~18 %, `--profile`).
// Compiled with -mavx2 -mfma (and -ffp-contract=off: no fused epilogue).
#include <immintrin.h>

#include <algorithm>

#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/support/x86/int8_requant_avx2.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kLanes = 16;

inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

struct Layout {
  bool narrow;        // out_width <= 8: two output rows per 16 lanes
  int64_t rows;       // padded rows: height + 2 * pad_h
  int64_t phase_len;  // int16 per phase (multiple of 16)
  int64_t row_elems;  // stride_w * phase_len
  int64_t pairs;      // ceil(taps / 2)
  size_t plane_bytes, weight_bytes, offset_bytes;
};

Layout layout_of(const Int8DepthwiseProblem& p) {
  Layout l;
  l.narrow = p.out_width <= 8;
  l.rows = p.height + 2 * p.pad_h;
  const int64_t s = p.stride_w;
  const int64_t max_offset = (p.kernel_w - 1) * p.dilation_w / s;
  // Room for every padded column plus a 16-lane store past the last one
  // (fill_row), and for the last block of the farthest tap, 32 lanes wide
  // for the VNNI rows (lanes past out_width read zeros and are discarded).
  constexpr int64_t kVnniLanes = 32;
  const int64_t len = std::max((p.width + 2 * p.pad_w + s - 1) / s + kLanes,
                               round_up(p.out_width, kVnniLanes) + max_offset);
  l.phase_len = round_up(len, kLanes);
  l.row_elems = s * l.phase_len;
  l.pairs = (p.taps() + 1) / 2;
  l.plane_bytes = round_up_64(static_cast<size_t>(l.rows * l.row_elems) * sizeof(int16_t));
  l.weight_bytes = round_up_64(static_cast<size_t>(l.pairs) * sizeof(int32_t));
  l.offset_bytes = round_up_64(static_cast<size_t>(2 * l.pairs) * sizeof(int64_t));
  return l;
}

struct Workspace {
  int16_t* plane;          // [rows][row_elems]: the widened, padded plane
  int32_t* weights;        // [pairs]: (w_a & 0xffff) | (w_b << 16)
  // [2 * pairs]: where tap t = kh * kernel_w + kw reads, from the start of
  // output row oh's first padded row (oh * stride_h); a tap past the last
  // one, for an odd count, repeats the last (with weight 0).
  int64_t* tap_offsets;
  const int8_t* input_end;  // one past the input tensor (bounds 16-byte loads)
};

Workspace workspace_of(const Layout& l, void* scratch) {
  char* base = static_cast<char*>(scratch);
  Workspace w;
  w.plane = reinterpret_cast<int16_t*>(base);
  base += l.plane_bytes;
  w.weights = reinterpret_cast<int32_t*>(base);
  base += l.weight_bytes;
  w.tap_offsets = reinterpret_cast<int64_t*>(base);
  w.input_end = nullptr;
  return w;
}

// x[0, 16) - zx as int16, lanes >= count zeroed.
inline __m256i widen16(const int8_t* x, __m256i zx, int64_t count) {
  const __m256i v = _mm256_sub_epi16(_mm256_cvtepi8_epi16(load128(x)), zx);
  if (count >= kLanes) return v;
  const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m256i n = _mm256_set1_epi16(static_cast<int16_t>(count));
  return _mm256_and_si256(v, _mm256_cmpgt_epi16(n, lane));
}

// Widens input row ih of a plane (at x) into padded row ih + pad_h (at
// dst; layout in the file comment). Padding positions are never written
// with data (the buffer is zeroed once per call, and 16-lane stores past a
// row's end write zeros).
void fill_row(const Int8DepthwiseProblem& p, const Layout& l, const Workspace& w,
              const int8_t* x, int16_t* dst) {
  const int64_t s = p.stride_w, pw = p.pad_w, len = l.phase_len, width = p.width;
  const int16_t zx = static_cast<int16_t>(p.in_zero_point);
  const __m256i vzx = _mm256_set1_epi16(zx);
  // 16-byte loads while they stay inside the input tensor.
  auto loadable = [&](int64_t iw) { return iw < width && x + iw + kLanes <= w.input_end; };
  int64_t iw = 0;
  if (s == 1) {
    for (; loadable(iw); iw += kLanes) store256(dst + pw + iw, widen16(x + iw, vzx, width - iw));
  } else if (s == 2) {
    // Even input columns land in phase pw % 2 at pw / 2 + iw / 2, odd ones
    // in phase (pw + 1) % 2 at (pw + 1) / 2 + (iw - 1) / 2.
    int16_t* even = dst + (pw % 2) * len + pw / 2;
    int16_t* odd = dst + ((pw + 1) % 2) * len + (pw + 1) / 2;
    const __m256i split = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                           0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    for (; loadable(iw); iw += kLanes) {
      const __m256i v = widen16(x + iw, vzx, width - iw);
      const __m256i eo = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, split), 0xD8);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(even + iw / 2), _mm256_castsi256_si128(eo));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(odd + iw / 2), _mm256_extracti128_si256(eo, 1));
    }
  }
  // The rest one by one (phase and index stepped, no division per pixel).
  if (iw >= width) return;
  int64_t phase = (iw + pw) % s, j = (iw + pw) / s;
  for (; iw < width; ++iw) {
    dst[phase * len + j] = static_cast<int16_t>(x[iw] - zx);
    if (++phase == s) {
      phase = 0;
      ++j;
    }
  }
}


// Sums the taps of 16 lanes: lanes 0-7 at row_a + off[t], lanes 8-15 at
// row_b + off[t] (kNarrow) or row_a + off[t] + 8. kPairs: the pair count
// when known at compile time (0: `pairs`).
#define TE_DW_INLINE __attribute__((always_inline)) inline

template <bool kNarrow, int kPairs>
TE_DW_INLINE void sum_taps(const int16_t* row_a, const int16_t* row_b, const int64_t* off,
                     const int32_t* weights, int64_t pairs, __m256i* lo, __m256i* hi) {
  __m256i acc_lo = _mm256_setzero_si256(), acc_hi = _mm256_setzero_si256();
  const int64_t n = kPairs > 0 ? kPairs : pairs;
  for (int64_t i = 0; i < n; ++i) {
    __m256i a, b;
    if (kNarrow) {
      a = _mm256_inserti128_si256(_mm256_castsi128_si256(load128(row_a + off[2 * i])),
                                  load128(row_b + off[2 * i]), 1);
      b = _mm256_inserti128_si256(_mm256_castsi128_si256(load128(row_a + off[2 * i + 1])),
                                  load128(row_b + off[2 * i + 1]), 1);
    } else {
      a = load256(row_a + off[2 * i]);
      b = load256(row_a + off[2 * i + 1]);
    }
    const __m256i wab = _mm256_set1_epi32(weights[i]);
    acc_lo = _mm256_add_epi32(acc_lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wab));
    acc_hi = _mm256_add_epi32(acc_hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wab));
  }
  *lo = acc_lo;
  *hi = acc_hi;
}

// Stores 16 bytes at dst, or only `count` when a full store would run past
// `limit` (a full store may write ahead into output rows that are computed
// later, but never past the plane).
TE_DW_INLINE void store16(int8_t* dst, __m128i v, int64_t count, const int8_t* limit) {
  if (dst + kLanes <= limit) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), v);
    return;
  }
  alignas(16) int8_t tmp[kLanes];
  _mm_store_si128(reinterpret_cast<__m128i*>(tmp), v);
  for (int64_t i = 0; i < count; ++i) dst[i] = tmp[i];
}

inline __m256i pair_weights(int8_t a, int8_t b) {
  return _mm256_set1_epi32(static_cast<int32_t>((static_cast<uint32_t>(a) & 0xffffu) |
                                                (static_cast<uint32_t>(b) << 16)));
}

// 3x3, stride 1, dilation 1 (MobileNetV2's stride-1 depthwise layers): output
// rows oh and oh + 1 in one pass over padded rows r0..r3 = oh..oh + 3, so
// each input row's (kw 0, kw 1) interleave serves both rows. Pairs of row
// oh: (r0 k0, r0 k1), (r1 k0, r1 k1), (r2 k0, r2 k1), (r1 k2, r2 k2),
// (r0 k2, r3 k2 * 0); of row oh + 1 the same vectors with the weights moved
// one row up (and r0 k2 * 0). 16 output pixels per step and row.
struct TwoRows3x3 {
  __m256i w0, w1, w2;        // (w[kh][0], w[kh][1])
  __m256i a12, a03, b12, b03;  // the k2 pairs of row oh (a) and oh + 1 (b)
  explicit TwoRows3x3(const int8_t* k)
      : w0(pair_weights(k[0], k[1])), w1(pair_weights(k[3], k[4])), w2(pair_weights(k[6], k[7])),
        a12(pair_weights(k[5], k[8])), a03(pair_weights(k[2], 0)),
        b12(pair_weights(k[2], k[5])), b03(pair_weights(0, k[8])) {}

  // Sums for pixels [ow, ow + 16) of both rows; r: padded row oh.
  TE_DW_INLINE void sums(const int16_t* r, int64_t row_elems, __m256i* lo0, __m256i* hi0,
                         __m256i* lo1, __m256i* hi1) const {
    const int16_t* r1 = r + row_elems;
    const int16_t* r2 = r1 + row_elems;
    const int16_t* r3 = r2 + row_elems;
    auto madd = [](__m256i x, __m256i y) { return _mm256_madd_epi16(x, y); };
    // Row r0: k01 into row oh only.
    __m256i x = load256(r), y = load256(r + 1);
    __m256i a_lo = madd(_mm256_unpacklo_epi16(x, y), w0);
    __m256i a_hi = madd(_mm256_unpackhi_epi16(x, y), w0);
    // Row r1: k01 into both.
    x = load256(r1);
    y = load256(r1 + 1);
    __m256i lo = _mm256_unpacklo_epi16(x, y), hi = _mm256_unpackhi_epi16(x, y);
    a_lo = _mm256_add_epi32(a_lo, madd(lo, w1));
    a_hi = _mm256_add_epi32(a_hi, madd(hi, w1));
    __m256i b_lo = madd(lo, w0), b_hi = madd(hi, w0);
    // Row r2: k01 into both.
    x = load256(r2);
    y = load256(r2 + 1);
    lo = _mm256_unpacklo_epi16(x, y);
    hi = _mm256_unpackhi_epi16(x, y);
    a_lo = _mm256_add_epi32(a_lo, madd(lo, w2));
    a_hi = _mm256_add_epi32(a_hi, madd(hi, w2));
    b_lo = _mm256_add_epi32(b_lo, madd(lo, w1));
    b_hi = _mm256_add_epi32(b_hi, madd(hi, w1));
    // Row r3: k01 into row oh + 1 only.
    x = load256(r3);
    y = load256(r3 + 1);
    b_lo = _mm256_add_epi32(b_lo, madd(_mm256_unpacklo_epi16(x, y), w2));
    b_hi = _mm256_add_epi32(b_hi, madd(_mm256_unpackhi_epi16(x, y), w2));
    // (r1 k2, r2 k2) and (r0 k2, r3 k2).
    x = load256(r1 + 2);
    y = load256(r2 + 2);
    lo = _mm256_unpacklo_epi16(x, y);
    hi = _mm256_unpackhi_epi16(x, y);
    a_lo = _mm256_add_epi32(a_lo, madd(lo, a12));
    a_hi = _mm256_add_epi32(a_hi, madd(hi, a12));
    b_lo = _mm256_add_epi32(b_lo, madd(lo, b12));
    b_hi = _mm256_add_epi32(b_hi, madd(hi, b12));
    x = load256(r + 2);
    y = load256(r3 + 2);
    lo = _mm256_unpacklo_epi16(x, y);
    hi = _mm256_unpackhi_epi16(x, y);
    *lo0 = _mm256_add_epi32(a_lo, madd(lo, a03));
    *hi0 = _mm256_add_epi32(a_hi, madd(hi, a03));
    *lo1 = _mm256_add_epi32(b_lo, madd(lo, b03));
    *hi1 = _mm256_add_epi32(b_hi, madd(hi, b03));
  }
};

template <bool kNarrow, int kPairs, bool kBias, bool kBounded>
void plane_avx2(const Int8DepthwiseProblem& p, const Layout& l, const Workspace& w,
                const int8_t* plane, int8_t* out, int64_t c) {
  // 16 lanes held as [0-3 | 8-11] and [4-7 | 12-15], one channel's scale and bias.
  const Int8RequantAvx2 ep(p);
  auto requant = [&](__m256i lo, __m256i hi, __m256 scale, __m256 bias) {
    return ep.sixteen<kBias, kBounded>(lo, scale, bias, hi, scale, bias);
  };
  const __m256 scale = _mm256_set1_ps(p.in_scale * p.w_scales[c]);
  const __m256 bias = _mm256_set1_ps(kBias ? p.bias[c] : 0.0f);
  const int64_t ow_total = p.out_width;
  const int8_t* out_end = out + p.out_height * ow_total;
  if (kNarrow) {
    // Lanes 0-7 hold row oh, lanes 8-15 row oh + 1: move the second row's
    // out_width bytes next to the first's (the two rows are contiguous).
    alignas(16) int8_t order[kLanes];
    for (int64_t i = 0; i < kLanes; ++i) {
      order[i] = static_cast<int8_t>(i < ow_total ? i : (i < 2 * ow_total ? i - ow_total + 8 : 15));
    }
    const __m128i compact = _mm_load_si128(reinterpret_cast<const __m128i*>(order));
    for (int64_t oh = 0; oh < p.out_height; oh += 2) {
      const bool second = oh + 1 < p.out_height;
      const int16_t* row_a = w.plane + oh * p.stride_h * l.row_elems;
      const int16_t* row_b = second ? row_a + p.stride_h * l.row_elems : row_a;
      __m256i lo, hi;
      sum_taps<true, kPairs>(row_a, row_b, w.tap_offsets, w.weights, l.pairs, &lo, &hi);
      const __m128i v = _mm_shuffle_epi8(requant(lo, hi, scale, bias), compact);
      store16(out + oh * ow_total, v, (second ? 2 : 1) * ow_total, out_end);
    }
    return;
  }
  // Local copies of a known number of offsets and weights: the compiler
  // keeps them in registers (the int8 output stores could alias the tables).
  constexpr int kLocal = kPairs > 0 ? kPairs : 1;
  int32_t weights[kLocal];
  int64_t offsets[2 * kLocal];
  for (int i = 0; i < kPairs; ++i) weights[i] = w.weights[i];
  for (int i = 0; i < 2 * kPairs; ++i) offsets[i] = w.tap_offsets[i];
  const int32_t* wt = kPairs > 0 ? weights : w.weights;
  const int64_t* off = kPairs > 0 ? offsets : w.tap_offsets;
  int64_t oh = 0;
  if (kPairs == 5 && p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 &&
      p.dilation_h == 1 && p.dilation_w == 1) {
    const TwoRows3x3 k(p.weight + c * 9);
    for (; oh + 2 <= p.out_height; oh += 2) {
      const int16_t* in_row = w.plane + oh * l.row_elems;
      int8_t* row = out + oh * ow_total;
      // Last block first: a partial block's 16-byte store into row oh
      // spills into row oh + 1's first pixels, which the later blocks write.
      for (int64_t ow = (ow_total - 1) / kLanes * kLanes; ow >= 0; ow -= kLanes) {
        __m256i lo0, hi0, lo1, hi1;
        k.sums(in_row + ow, l.row_elems, &lo0, &hi0, &lo1, &hi1);
        const int64_t n = std::min(kLanes, ow_total - ow);
        store16(row + ow, requant(lo0, hi0, scale, bias), n, out_end);
        store16(row + ow_total + ow, requant(lo1, hi1, scale, bias), n, out_end);
      }
    }
  }
  for (; oh < p.out_height; ++oh) {
    const int16_t* in_row = w.plane + oh * p.stride_h * l.row_elems;
    int8_t* row = out + oh * ow_total;
    for (int64_t ow = 0; ow < ow_total; ow += kLanes) {
      __m256i lo, hi;
      sum_taps<false, kPairs>(in_row + ow, nullptr, off, wt, l.pairs, &lo, &hi);
      store16(row + ow, requant(lo, hi, scale, bias), std::min(kLanes, ow_total - ow), out_end);
    }
  }
}

template <bool kNarrow, int kPairs>
void plane_dispatch_bias(const Int8DepthwiseProblem& p, const Layout& l, const Workspace& w,
                         const int8_t* plane, int8_t* out, int64_t c) {
  const bool bounded = int8_depthwise_channel_is_bounded(p, c);
  if (p.bias != nullptr) {
    if (bounded) return plane_avx2<kNarrow, kPairs, true, true>(p, l, w, plane, out, c);
    return plane_avx2<kNarrow, kPairs, true, false>(p, l, w, plane, out, c);
  }
  if (bounded) return plane_avx2<kNarrow, kPairs, false, true>(p, l, w, plane, out, c);
  return plane_avx2<kNarrow, kPairs, false, false>(p, l, w, plane, out, c);
}

template <bool kNarrow>
void plane_dispatch(const Int8DepthwiseProblem& p, const Layout& l, const Workspace& w,
                    const int8_t* plane, int8_t* out, int64_t c) {
  switch (l.pairs) {
    case 5: return plane_dispatch_bias<kNarrow, 5>(p, l, w, plane, out, c);    // 3x3
    case 13: return plane_dispatch_bias<kNarrow, 13>(p, l, w, plane, out, c);  // 5x5
    default: return plane_dispatch_bias<kNarrow, 0>(p, l, w, plane, out, c);
  }
}

}  // namespace

size_t int8_depthwise_avx2_worker_bytes(const Int8DepthwiseProblem& p) {
  const Layout l = layout_of(p);
  return l.plane_bytes + l.weight_bytes + l.offset_bytes;
}

void int8_depthwise_avx2(const Int8DepthwiseProblem& p, int64_t plane_begin, int64_t plane_end,
                         void* worker_scratch) {
  const Layout l = layout_of(p);
  Workspace w = workspace_of(l, worker_scratch);
  w.input_end = p.input + p.planes() * p.height * p.width;
  const __m256i zero = _mm256_setzero_si256();
  for (int64_t i = 0; i < l.rows * l.row_elems; i += kLanes) store256(w.plane + i, zero);
  const int64_t taps = p.taps();
  const int64_t plane_in = p.height * p.width, plane_out = p.out_height * p.out_width;
  for (int64_t kh = 0, t = 0; kh < p.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < p.kernel_w; ++kw, ++t) {
      const int64_t col = kw * p.dilation_w;
      w.tap_offsets[t] = kh * p.dilation_h * l.row_elems + (col % p.stride_w) * l.phase_len +
                         col / p.stride_w;
    }
  }
  if (taps < 2 * l.pairs) w.tap_offsets[taps] = w.tap_offsets[taps - 1];
  const bool vnni = quant_isa() == QuantIsa::kAvx512Vnni && !l.narrow &&
                    (p.out_width >= kInt8DepthwiseVnniMinWidth ||
                     p.out_width <= kInt8DepthwiseVnniTwoRowsMaxWidth);
  for (int64_t plane = plane_begin; plane < plane_end; ++plane) {
    const int64_t c = plane % p.channels;
    const int8_t* k = p.weight + c * taps;
    for (int64_t i = 0; i < l.pairs; ++i) {
      const int32_t a = k[2 * i];
      const int32_t b = 2 * i + 1 < taps ? k[2 * i + 1] : 0;
      w.weights[i] = static_cast<int32_t>((static_cast<uint32_t>(a) & 0xffffu) |
                                          (static_cast<uint32_t>(b) << 16));
    }
    const int8_t* x = p.input + plane * plane_in;
    for (int64_t ih = 0; ih < p.height; ++ih) {
      fill_row(p, l, w, x + ih * p.width, w.plane + (ih + p.pad_h) * l.row_elems);
    }
    int8_t* out = p.out + plane * plane_out;
    if (vnni) {
      const Int8DepthwisePlane widened{w.plane, l.row_elems, w.tap_offsets, w.weights, l.pairs};
      int8_depthwise_plane_avx512vnni(p, widened, out, c,
                                      int8_depthwise_channel_is_bounded(p, c));
    } else if (l.narrow) {
      plane_dispatch<true>(p, l, w, x, out, c);
    } else {
      plane_dispatch<false>(p, l, w, x, out, c);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
