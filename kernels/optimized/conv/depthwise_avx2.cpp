// Depthwise convolution, AVX2 build (-mavx2 -mfma): conv/depthwise_loops.h,
// with 3x3 planes (stride 1 or 2, no dilation: every MobileNet depthwise
// layer) computed 8 outputs at a time: the nine weights stay in registers,
// each output vector is bias + 9 FMAs and is stored once (the generic loop
// reloads and stores the output row once per tap: ~6 GFLOP/s on
// MobileNetV2). Stride 1 computes two output rows per pass (their shared
// input rows loaded once: 4-8 % faster per layer, min of 40 interleaved
// runs). Stride 2 deinterleaves two 8-float loads into the even and odd
// input columns. The last partial vector of a row is computed whole
// (its extra lanes read the padded plane's next row or slack) and stored
// through a mask. A fused activation clamps each vector before its store
// (max then min, which keeps NaN: the ops return their second operand
// when one is NaN), only when the clamp is active.
#include <immintrin.h>

#include "kernels/optimized/conv/depthwise_loops.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

// Even / odd elements of the 16 floats at p: [p0 p2 .. p14], [p1 p3 .. p15].
static inline __m256 evens(const float* p) {
  const __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8),
                                     _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
}
static inline __m256 odds(const float* p) {
  const __m256 o = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8),
                                     _MM_SHUFFLE(3, 1, 3, 1));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
}

// min(hi, max(lo, v)): conv2d.h's clamp (NaN v stays NaN).
template <bool kClamp>
static inline __m256 clamp8(__m256 v, __m256 lo, __m256 hi) {
  return kClamp ? _mm256_min_ps(hi, _mm256_max_ps(lo, v)) : v;
}

// The three tap vectors (kernel columns 0, 1, 2) of 8 outputs in one input row.
struct Taps {
  __m256 t0, t1, t2;
};

// Row r0's taps into bias + k0..k2 (the sum is taken in this order by every
// path, so the padded-copy and direct planes give the same bits).
static inline __m256 row_sum(const Taps& x, __m256 k0, __m256 k1, __m256 k2, __m256 acc) {
  acc = _mm256_fmadd_ps(k0, x.t0, acc);
  acc = _mm256_fmadd_ps(k1, x.t1, acc);
  return _mm256_fmadd_ps(k2, x.t2, acc);
}

// Stride-1 output rows oh (from input rows x[0..2]) and oh + 1 (x[1..3]):
// the two middle rows' taps serve both.
static inline void two_row_sums(const Taps (&x)[4], const __m256* k, __m256 vb, __m256* v0,
                                __m256* v1) {
  __m256 a = row_sum(x[0], k[0], k[1], k[2], vb);
  __m256 c = row_sum(x[3], k[6], k[7], k[8], vb);
  __m256 a1 = _mm256_mul_ps(k[3], x[1].t0);
  __m256 c1 = _mm256_mul_ps(k[0], x[1].t0);
  a1 = _mm256_fmadd_ps(k[4], x[1].t1, a1);
  c1 = _mm256_fmadd_ps(k[1], x[1].t1, c1);
  a1 = _mm256_fmadd_ps(k[5], x[1].t2, a1);
  c1 = _mm256_fmadd_ps(k[2], x[1].t2, c1);
  a = _mm256_fmadd_ps(k[6], x[2].t0, a);
  c = _mm256_fmadd_ps(k[3], x[2].t0, c);
  a = _mm256_fmadd_ps(k[7], x[2].t1, a);
  c = _mm256_fmadd_ps(k[4], x[2].t1, c);
  a = _mm256_fmadd_ps(k[8], x[2].t2, a);
  c = _mm256_fmadd_ps(k[5], x[2].t2, c);
  *v0 = _mm256_add_ps(a, a1);
  *v1 = _mm256_add_ps(c, c1);
}

// One output row from input rows x[0..2]: three partial sums keep the FMA
// chains short.
static inline __m256 one_row_sum(const Taps (&x)[3], const __m256* k, __m256 vb) {
  const __m256 a0 = row_sum(x[0], k[0], k[1], k[2], vb);
  const __m256 a1 = row_sum(x[1], k[3], k[4], k[5], _mm256_setzero_ps());
  const __m256 a2 = row_sum(x[2], k[6], k[7], k[8], _mm256_setzero_ps());
  return _mm256_add_ps(_mm256_add_ps(a0, a1), a2);
}

// Taps of the 8 outputs at ow from a zero-padded row (padded column = input
// column + padding): stride 1 reads r + ow + kw, stride 2 deinterleaves.
template <int kStride>
static inline Taps padded_taps(const float* r, int64_t ow) {
  if (kStride == 1) {
    return Taps{_mm256_loadu_ps(r + ow), _mm256_loadu_ps(r + ow + 1), _mm256_loadu_ps(r + ow + 2)};
  }
  const float* p = r + 2 * ow;
  return Taps{evens(p), odds(p), evens(p + 2)};
}

template <int kStride, bool kClamp>
static void plane3x3(const Conv2dShape& s, const float* padded, int64_t pw, const float* w,
                     float b, const Conv2dClamp& clamp, float* y) {
  const __m256 lo = _mm256_set1_ps(clamp.min), hi = _mm256_set1_ps(clamp.max);
  __m256 k[9];
  for (int i = 0; i < 9; ++i) k[i] = _mm256_set1_ps(w[i]);
  const __m256 vb = _mm256_set1_ps(b);
  const int64_t full = s.out_w / 8 * 8;
  const int rem = static_cast<int>(s.out_w - full);
  const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  int64_t oh = 0;
  if (kStride == 1) {
    // Two output rows per pass: input rows 1 and 2 of the window serve both.
    for (; oh + 2 <= s.out_h; oh += 2) {
      const float* r0 = padded + oh * pw;
      const float* r1 = r0 + pw;
      const float* r2 = r1 + pw;
      const float* r3 = r2 + pw;
      float* out0 = y + oh * s.out_w;
      float* out1 = out0 + s.out_w;
      for (int64_t ow = 0; ow < s.out_w; ow += 8) {
        const Taps x[4] = {padded_taps<1>(r0, ow), padded_taps<1>(r1, ow), padded_taps<1>(r2, ow),
                           padded_taps<1>(r3, ow)};
        __m256 v0, v1;
        two_row_sums(x, k, vb, &v0, &v1);
        v0 = clamp8<kClamp>(v0, lo, hi);
        v1 = clamp8<kClamp>(v1, lo, hi);
        if (ow < full) {
          _mm256_storeu_ps(out0 + ow, v0);
          _mm256_storeu_ps(out1 + ow, v1);
        } else {
          _mm256_maskstore_ps(out0 + ow, tail, v0);
          _mm256_maskstore_ps(out1 + ow, tail, v1);
        }
      }
    }
  }
  for (; oh < s.out_h; ++oh) {
    const float* r0 = padded + oh * kStride * pw;
    const float* r1 = r0 + pw;
    const float* r2 = r1 + pw;
    float* out = y + oh * s.out_w;
    int64_t ow = 0;
    for (; ow <= full; ow += 8) {
      if (ow == full && rem == 0) break;
      const Taps x[3] = {padded_taps<kStride>(r0, ow), padded_taps<kStride>(r1, ow),
                         padded_taps<kStride>(r2, ow)};
      const __m256 v = clamp8<kClamp>(one_row_sum(x, k, vb), lo, hi);
      if (ow < full) {
        _mm256_storeu_ps(out + ow, v);
      } else {
        _mm256_maskstore_ps(out + ow, tail, v);
      }
    }
  }
}

// ---- Direct planes (3x3, padding 1): read the input plane itself. ----
// Rows above and below the input read a zero row; the left and right
// padding columns enter as a zero lane shifted into the first (last)
// vector of a row. Each output vector is the same FMAs in the same order as
// plane3x3's on the padded copy (a padding tap multiplies a zero in both),
// so both paths give the same bits.

// [0, v0 .. v6] and [v1 .. v7, 0].
static inline __m256 shift_in_zero_left(__m256 v) {
  const __m256 p = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
  return _mm256_blend_ps(p, _mm256_setzero_ps(), 0x01);
}
static inline __m256 shift_in_zero_right(__m256 v) {
  const __m256 p = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7));
  return _mm256_blend_ps(p, _mm256_setzero_ps(), 0x80);
}

enum Edge { kInterior, kLeftEdge, kRightEdge };

// The taps of the 8 outputs starting at `ow` in one input row, read in
// place. Stride 1: input columns ow - 1 + kw + j; stride 2: 2 ow - 1 + kw +
// 2 j. kLeftEdge is ow == 0; kRightEdge (stride 1 only) is the last vector,
// ow == width - 8.
template <int kStride, Edge kEdge>
static inline Taps direct_taps(const float* row, int64_t ow) {
  if (kStride == 1) {
    if (kEdge == kLeftEdge) {
      const __m256 mid = _mm256_loadu_ps(row);
      return Taps{shift_in_zero_left(mid), mid, _mm256_loadu_ps(row + 1)};
    }
    if (kEdge == kRightEdge) {
      const __m256 mid = _mm256_loadu_ps(row + ow);
      return Taps{_mm256_loadu_ps(row + ow - 1), mid, shift_in_zero_right(mid)};
    }
    return Taps{_mm256_loadu_ps(row + ow - 1), _mm256_loadu_ps(row + ow),
                _mm256_loadu_ps(row + ow + 1)};
  }
  const __m256 even = evens(row + 2 * ow), odd = odds(row + 2 * ow);
  return Taps{kEdge == kLeftEdge ? shift_in_zero_left(odd) : odds(row + 2 * ow - 2), even, odd};
}

struct DirectPlane {
  const float* x;     // the input plane
  const float* zero;  // a zero row for rows outside it
  int64_t in_h, in_w;
  const float* row(int64_t ih) const { return ih < 0 || ih >= in_h ? zero : x + ih * in_w; }
};

// Two stride-1 output rows (oh, oh + 1): input rows oh - 1 .. oh + 2.
template <Edge kEdge, bool kClamp>
static inline void two_rows_direct(const DirectPlane& p, int64_t oh, int64_t ow, const __m256* k,
                                   __m256 vb, __m256 lo, __m256 hi, float* out0, float* out1) {
  const Taps x[4] = {direct_taps<1, kEdge>(p.row(oh - 1), ow), direct_taps<1, kEdge>(p.row(oh), ow),
                     direct_taps<1, kEdge>(p.row(oh + 1), ow),
                     direct_taps<1, kEdge>(p.row(oh + 2), ow)};
  __m256 v0, v1;
  two_row_sums(x, k, vb, &v0, &v1);
  _mm256_storeu_ps(out0 + ow, clamp8<kClamp>(v0, lo, hi));
  _mm256_storeu_ps(out1 + ow, clamp8<kClamp>(v1, lo, hi));
}

// One output row from input rows ih0 .. ih0 + 2.
template <int kStride, Edge kEdge, bool kClamp>
static inline void one_row_direct(const DirectPlane& p, int64_t ih0, int64_t ow, const __m256* k,
                                  __m256 vb, __m256 lo, __m256 hi, float* out) {
  const Taps x[3] = {direct_taps<kStride, kEdge>(p.row(ih0), ow),
                     direct_taps<kStride, kEdge>(p.row(ih0 + 1), ow),
                     direct_taps<kStride, kEdge>(p.row(ih0 + 2), ow)};
  _mm256_storeu_ps(out + ow, clamp8<kClamp>(one_row_sum(x, k, vb), lo, hi));
}

// Whether plane3x3_direct takes the geometry: 3x3, padding 1, no dilation,
// stride 1 with rows of >= 9, or stride 2 with even rows of >= 18 (so every
// vector, the last one shifted left to end at the row's end, stays inside
// the row and is not the left-edge one; odd stride-2 rows would need column
// in_w).
static bool direct_applies(const Conv2dShape& s) {
  if (s.kernel_h != 3 || s.kernel_w != 3 || s.dilation_h != 1 || s.dilation_w != 1 ||
      s.pad_h != 1 || s.pad_w != 1 || s.stride_h != s.stride_w) {
    return false;
  }
  if (s.stride_h == 1) return s.in_w >= 9 && s.out_w == s.in_w;
  return s.stride_h == 2 && s.in_w % 2 == 0 && s.in_w >= 18 && s.out_w == s.in_w / 2;
}

// Vectors at 0 (left edge), 8, 16, ... and one ending at the row's end
// (overlapping the one before when out_w is not a multiple of 8; it
// recomputes the same values).
template <int kStride, bool kClamp>
static void plane3x3_direct(const Conv2dShape& s, const float* x, const float* zero,
                            const float* w, float b, const Conv2dClamp& clamp, float* y) {
  const __m256 lo = _mm256_set1_ps(clamp.min), hi = _mm256_set1_ps(clamp.max);
  __m256 k[9];
  for (int i = 0; i < 9; ++i) k[i] = _mm256_set1_ps(w[i]);
  const __m256 vb = _mm256_set1_ps(b);
  const DirectPlane p{x, zero, s.in_h, s.in_w};
  const int64_t last = s.out_w - 8;
  int64_t oh = 0;
  if (kStride == 1) {
    for (; oh + 2 <= s.out_h; oh += 2) {
      float* out0 = y + oh * s.out_w;
      float* out1 = out0 + s.out_w;
      two_rows_direct<kLeftEdge, kClamp>(p, oh, 0, k, vb, lo, hi, out0, out1);
      for (int64_t ow = 8; ow < last; ow += 8) {
        two_rows_direct<kInterior, kClamp>(p, oh, ow, k, vb, lo, hi, out0, out1);
      }
      two_rows_direct<kRightEdge, kClamp>(p, oh, last, k, vb, lo, hi, out0, out1);
    }
  }
  constexpr Edge kLastEdge = kStride == 1 ? kRightEdge : kInterior;
  for (; oh < s.out_h; ++oh) {
    const int64_t ih0 = oh * kStride - 1;
    float* out = y + oh * s.out_w;
    one_row_direct<kStride, kLeftEdge, kClamp>(p, ih0, 0, k, vb, lo, hi, out);
    for (int64_t ow = 8; ow < last; ow += 8) {
      one_row_direct<kStride, kInterior, kClamp>(p, ih0, ow, k, vb, lo, hi, out);
    }
    one_row_direct<kStride, kLastEdge, kClamp>(p, ih0, last, k, vb, lo, hi, out);
  }
}

struct Direct3x3 {
  static bool applies(const Conv2dShape& s) { return direct_applies(s); }
  static void plane(const Conv2dShape& s, const float* x, const float* zero, const float* w,
                    float b, const Conv2dClamp& clamp, float* y) {
    const bool clamped = clamp.active();
    if (s.stride_h == 1) {
      clamped ? plane3x3_direct<1, true>(s, x, zero, w, b, clamp, y)
              : plane3x3_direct<1, false>(s, x, zero, w, b, clamp, y);
    } else {
      clamped ? plane3x3_direct<2, true>(s, x, zero, w, b, clamp, y)
              : plane3x3_direct<2, false>(s, x, zero, w, b, clamp, y);
    }
  }
};

}  // namespace

Error conv2d_depthwise_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, float* y,
                            const Conv2dClamp& clamp) {
  const bool is3x3 = s.kernel_h == 3 && s.kernel_w == 3 && s.dilation_h == 1 &&
                     s.dilation_w == 1 && s.stride_h == s.stride_w &&
                     (s.stride_h == 1 || s.stride_h == 2);
  const bool clamped = clamp.active();
  return depthwise_loops::run(
      ctx, s, x, w, bias, y, clamp,
      [is3x3, clamped](const Conv2dShape& g, const float* padded, int64_t pw, const float* wc,
                       float b, const Conv2dClamp& c, float* out) {
        if (!is3x3) return false;
        if (g.stride_h == 1) {
          clamped ? plane3x3<1, true>(g, padded, pw, wc, b, c, out)
                  : plane3x3<1, false>(g, padded, pw, wc, b, c, out);
        } else {
          clamped ? plane3x3<2, true>(g, padded, pw, wc, b, c, out)
                  : plane3x3<2, false>(g, padded, pw, wc, b, c, out);
        }
        return true;
      },
      Direct3x3{});
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
