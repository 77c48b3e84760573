// torchedge/kernels/optimized/copy/transpose_tile.h
//
// One tile of a 2-D transpose between strided memory:
//
//   dst[i * dst_stride + j] = src[i + j * src_stride]   0 <= i < ni, 0 <= j < nj
//
// (src walks i contiguously, dst walks j contiguously). Callers keep tiles
// small (kTransposeTile per side) so both sides stay in L1. 4-byte elements
// use SSE2 4x4 register transposes, which every x86-64 CPU has (baseline,
// no ISA dispatch needed); other widths and the ragged edges copy element
// by element.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__) && !defined(TORCHEDGE_NO_X86_SIMD)
#include <emmintrin.h>
#include <xmmintrin.h>
#define TORCHEDGE_COPY_SSE2 1
#endif

namespace torchedge {
namespace optimized {

/// Tile side in elements.
constexpr int64_t kTransposeTile = 16;

template <typename W>
inline void transpose_tile_scalar(const W* src, int64_t src_stride, W* dst, int64_t dst_stride,
                                  int64_t ni, int64_t nj) {
  for (int64_t i = 0; i < ni; ++i) {
    W* d = dst + i * dst_stride;
    const W* s = src + i;
    for (int64_t j = 0; j < nj; ++j) d[j] = s[j * src_stride];
  }
}

template <typename W>
inline void transpose_tile(const W* src, int64_t src_stride, W* dst, int64_t dst_stride,
                           int64_t ni, int64_t nj) {
#if defined(TORCHEDGE_COPY_SSE2)
  if (sizeof(W) == 4) {
    const int64_t ni4 = ni & ~int64_t{3}, nj4 = nj & ~int64_t{3};
    for (int64_t i = 0; i < ni4; i += 4) {
      for (int64_t j = 0; j < nj4; j += 4) {
        // Four source columns j..j+3, each holding rows i..i+3.
        __m128 c0 = _mm_castsi128_ps(_mm_loadu_si128(
            reinterpret_cast<const __m128i*>(src + i + (j + 0) * src_stride)));
        __m128 c1 = _mm_castsi128_ps(_mm_loadu_si128(
            reinterpret_cast<const __m128i*>(src + i + (j + 1) * src_stride)));
        __m128 c2 = _mm_castsi128_ps(_mm_loadu_si128(
            reinterpret_cast<const __m128i*>(src + i + (j + 2) * src_stride)));
        __m128 c3 = _mm_castsi128_ps(_mm_loadu_si128(
            reinterpret_cast<const __m128i*>(src + i + (j + 3) * src_stride)));
        _MM_TRANSPOSE4_PS(c0, c1, c2, c3);  // now c_a holds row i+a, columns j..j+3
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (i + 0) * dst_stride + j),
                         _mm_castps_si128(c0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (i + 1) * dst_stride + j),
                         _mm_castps_si128(c1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (i + 2) * dst_stride + j),
                         _mm_castps_si128(c2));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (i + 3) * dst_stride + j),
                         _mm_castps_si128(c3));
      }
      if (nj4 < nj) {  // right edge of these four rows
        transpose_tile_scalar(src + i + nj4 * src_stride, src_stride, dst + i * dst_stride + nj4,
                              dst_stride, 4, nj - nj4);
      }
    }
    if (ni4 < ni) {  // bottom edge
      transpose_tile_scalar(src + ni4, src_stride, dst + ni4 * dst_stride, dst_stride, ni - ni4,
                            nj);
    }
    return;
  }
#endif
  transpose_tile_scalar(src, src_stride, dst, dst_stride, ni, nj);
}

}  // namespace optimized
}  // namespace torchedge
