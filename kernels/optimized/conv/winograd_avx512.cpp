// The input and output transforms of the F(2x2, 3x3) Winograd convolution
// with 16 tiles per zmm (contract: conv/winograd.h, winograd_*_avx512);
// winograd_avx2.cpp runs everything else and calls these on AVX-512 CPUs
// for maps whose tile rows fill most of 16 lanes. The arithmetic is the
// AVX2 transforms' (the same additions and subtractions in the same order,
// the same epilogue), so both give the same bits. The deinterleaves are one
// vpermt2ps each: a tile's 4 columns are input columns 2t .. 2t + 3, i.e.
// the even and odd columns, and the same shifted by one tile (the 16th
// tile's from the third vector's first two lanes). Compiled with
// -mavx512f/dq/bw/vl.
#include <immintrin.h>

#include <cstdint>

#include "kernels/optimized/conv/winograd.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

constexpr int64_t kLanes = 16;

// Bits [lo, hi) of a 16-lane mask (empty when hi <= lo).
inline __mmask16 lane_range(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > kLanes ? kLanes : hi;
  if (hi <= lo) return 0;
  return static_cast<__mmask16>(((1u << (hi - lo)) - 1u) << lo);
}

// Infinities and NaNs (fpclass: QNaN, +inf, -inf, SNaN).
constexpr int kNonFiniteClasses = 0x01 | 0x08 | 0x10 | 0x80;

}  // namespace

bool winograd_input_avx512(const Conv2dShape& s, int64_t tiles_w, const float* plane, int64_t ty0,
                           int64_t ty1, float* v, int64_t point_stride) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  // Lane t of a shifted vector: lane t + 1 of the unshifted one; lane 15 the
  // third vector's lane 0 (column 32: even) or 1 (column 33: odd).
  const __m512i next_even =
      _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  const __m512i next_odd =
      _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17);
  __mmask16 nonfinite = 0;
  const int64_t last = (ty1 - ty0) * tiles_w;  // tiles in the band
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    for (int64_t tx = 0; tx < tiles_w; tx += kLanes) {
      const int64_t x0 = 2 * tx - s.pad_w;
      // Lane j of vector q is column x0 + 16 q + j: valid in [0, W); the
      // third vector's first two lanes only are used.
      __mmask16 valid[3];
      for (int q = 0; q < 3; ++q) {
        valid[q] = lane_range(-x0 - 16 * q, s.in_w - x0 - 16 * q);
      }
      valid[2] &= 0x3;
      __m512 d[4][4];
      for (int r = 0; r < 4; ++r) {
        const int64_t iy = 2 * ty - s.pad_h + r;
        if (iy < 0 || iy >= s.in_h) {
          for (int c = 0; c < 4; ++c) d[r][c] = _mm512_setzero_ps();
          continue;
        }
        __m512 x[3];
        for (int q = 0; q < 3; ++q) {
          x[q] = _mm512_maskz_loadu_ps(valid[q], masked_base(plane, iy * s.in_w + x0 + 16 * q));
          nonfinite |= _mm512_fpclass_ps_mask(x[q], kNonFiniteClasses);
        }
        d[r][0] = _mm512_permutex2var_ps(x[0], even, x[1]);
        d[r][1] = _mm512_permutex2var_ps(x[0], odd, x[1]);
        d[r][2] = _mm512_permutex2var_ps(d[r][0], next_even, x[2]);
        d[r][3] = _mm512_permutex2var_ps(d[r][1], next_odd, x[2]);
      }
      // Rows: t[i][c] = (B^T d)[i][c]; then columns of each row.
      __m512 t[4][4];
      for (int c = 0; c < 4; ++c) {
        t[0][c] = _mm512_sub_ps(d[0][c], d[2][c]);
        t[1][c] = _mm512_add_ps(d[1][c], d[2][c]);
        t[2][c] = _mm512_sub_ps(d[2][c], d[1][c]);
        t[3][c] = _mm512_sub_ps(d[1][c], d[3][c]);
      }
      // Lanes past the row's last tile land on the next rows' first tiles,
      // which are written after them; only the band's last 16 are masked
      // (past them is the next channel's row, another thread's).
      const int64_t at = (ty - ty0) * tiles_w + tx;
      const __mmask16 store = lane_range(0, last - at);
      float* out = v + at;
      for (int i = 0; i < 4; ++i) {
        const __m512 p[4] = {_mm512_sub_ps(t[i][0], t[i][2]), _mm512_add_ps(t[i][1], t[i][2]),
                             _mm512_sub_ps(t[i][2], t[i][1]), _mm512_sub_ps(t[i][1], t[i][3])};
        for (int j = 0; j < 4; ++j) {
          _mm512_mask_storeu_ps(out + (i * 4 + j) * point_stride, store, p[j]);
        }
      }
    }
  }
  return nonfinite == 0;
}

void winograd_output_avx512(const Conv2dShape& s, int64_t tiles_w, const float* m,
                            int64_t point_stride, int64_t ty0, int64_t ty1,
                            const WinogradEpilogue& e, float* y) {
  // Tile t's two outputs are pixels 2t and 2t + 1 of the 32.
  const __m512i first =
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i second =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const __m512 bias = _mm512_set1_ps(e.bias);
  const __m512 lo = _mm512_set1_ps(e.min), hi = _mm512_set1_ps(e.max);
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    for (int64_t tx = 0; tx < tiles_w; tx += kLanes) {
      const float* src = m + (ty - ty0) * tiles_w + tx;
      __m512 p[16];
      for (int xi = 0; xi < 16; ++xi) p[xi] = _mm512_loadu_ps(src + xi * point_stride);
      // Rows: r0 = m0 + m1 + m2, r1 = m1 - m2 - m3 (m_i: row i of the 4x4).
      __m512 r[2][4];
      for (int j = 0; j < 4; ++j) {
        r[0][j] = _mm512_add_ps(_mm512_add_ps(p[j], p[4 + j]), p[8 + j]);
        r[1][j] = _mm512_sub_ps(_mm512_sub_ps(p[4 + j], p[8 + j]), p[12 + j]);
      }
      const int64_t cols = s.out_w - 2 * tx < 2 * kLanes ? s.out_w - 2 * tx : 2 * kLanes;
      const __mmask16 m0 = lane_range(0, cols), m1 = lane_range(0, cols - kLanes);
      for (int i = 0; i < 2; ++i) {
        const int64_t oy = 2 * ty + i;
        if (oy >= s.out_h) break;
        const __m512 left = _mm512_add_ps(_mm512_add_ps(r[i][0], r[i][1]), r[i][2]);
        const __m512 right = _mm512_sub_ps(_mm512_sub_ps(r[i][1], r[i][2]), r[i][3]);
        __m512 a = _mm512_add_ps(_mm512_permutex2var_ps(left, first, right), bias);
        __m512 b = _mm512_add_ps(_mm512_permutex2var_ps(left, second, right), bias);
        const int64_t offset = oy * s.out_w + 2 * tx;
        if (e.residual != nullptr) {
          a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(m0, e.residual + offset));
          b = _mm512_add_ps(b, _mm512_maskz_loadu_ps(m1, e.residual + offset + kLanes));
        }
        if (e.clamp) {  // max then min: a NaN stays NaN (conv2d.h)
          a = _mm512_min_ps(hi, _mm512_max_ps(lo, a));
          b = _mm512_min_ps(hi, _mm512_max_ps(lo, b));
        }
        _mm512_mask_storeu_ps(y + offset, m0, a);
        _mm512_mask_storeu_ps(y + offset + kLanes, m1, b);
      }
    }
  }
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
