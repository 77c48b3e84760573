// torchedge/kernels/quantized/support/x86/int8_tile_avx2.h
//
// The 6x16 int16 multiply-add register tile shared by the AVX2 int8 GEMMs
// (int8_gemm_f32_avx2.cpp: linear_dynamic_int8, activations as A and weight
// strips as B; int8_conv_avx2.cpp: conv2d_int8, weight panels as A and
// activation strips as B). Include only from files compiled with -mavx2.
//
//   a: one 6-row panel, K in pairs, per pair the 6 rows' (k, k+1) int16 as
//      one int32 each (the row-panel layout of support/int8_gemm_f32.h);
//   b: one packed 16-column strip, per pair [16 columns][2] int16;
//   c: [rows][16] int32, overwritten, or added to when `accumulate`.
// Operands are int16 whose pair products and sums stay inside int32
// (vpmaddwd never saturates except for (-32768)^2 * 2, which the callers'
// ranges, |a| <= 128 and |b| <= 255, exclude).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace torchedge {
namespace quantized {
namespace int8_tile {

constexpr int64_t kTileRows = 6;
constexpr int64_t kTileCols = 16;

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }

inline void store_row(int32_t* c, __m256i lo, __m256i hi, bool accumulate) {
  if (accumulate) {
    lo = _mm256_add_epi32(lo, load256(c));
    hi = _mm256_add_epi32(hi, load256(c + 8));
  }
  store256(c, lo);
  store256(c + 8, hi);
}

// c[0..6)[0..16) (+)= sum over `pairs` (>= 1) of panel pair x weight pair.
// a: the panel's pairs (6 int32 per pair, support/int8_gemm_f32.h), b: the
// packed strip. The loop is written in assembly because GCC hoists the six
// broadcasts ahead of the multiplies and then spills accumulators to the
// stack; here the 12 accumulators (compiler-chosen among ymm0-11), 2 weight
// vectors (ymm12-13), the broadcast (ymm14) and one product (ymm15) use
// exactly the 16 ymm.
inline void tile(const int32_t* a, const int16_t* b, int64_t pairs, int32_t* c, bool accumulate) {
  __m256i c00 = _mm256_setzero_si256(), c01 = _mm256_setzero_si256();
  __m256i c10 = _mm256_setzero_si256(), c11 = _mm256_setzero_si256();
  __m256i c20 = _mm256_setzero_si256(), c21 = _mm256_setzero_si256();
  __m256i c30 = _mm256_setzero_si256(), c31 = _mm256_setzero_si256();
  __m256i c40 = _mm256_setzero_si256(), c41 = _mm256_setzero_si256();
  __m256i c50 = _mm256_setzero_si256(), c51 = _mm256_setzero_si256();
  asm volatile(
      "1:\n\t"
      "vmovdqu (%[b]), %%ymm12\n\t"
      "vmovdqu 32(%[b]), %%ymm13\n\t"
      "vpbroadcastd 0(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c00], %[c00]\n\t"
      "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c01], %[c01]\n\t"
      "vpbroadcastd 4(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c10], %[c10]\n\t"
      "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c11], %[c11]\n\t"
      "vpbroadcastd 8(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c20], %[c20]\n\t"
      "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c21], %[c21]\n\t"
      "vpbroadcastd 12(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c30], %[c30]\n\t"
      "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c31], %[c31]\n\t"
      "vpbroadcastd 16(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c40], %[c40]\n\t"
      "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c41], %[c41]\n\t"
      "vpbroadcastd 20(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c50], %[c50]\n\t"
      "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c51], %[c51]\n\t"
      "add $24, %[a]\n\t"
      "add $64, %[b]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      : [a] "+r"(a), [b] "+r"(b), [n] "+r"(pairs), [c00] "+x"(c00), [c01] "+x"(c01),
        [c10] "+x"(c10), [c11] "+x"(c11), [c20] "+x"(c20), [c21] "+x"(c21), [c30] "+x"(c30),
        [c31] "+x"(c31), [c40] "+x"(c40), [c41] "+x"(c41), [c50] "+x"(c50), [c51] "+x"(c51)
      :
      : "cc", "memory", "xmm12", "xmm13", "xmm14", "xmm15");
  store_row(c + 0 * 16, c00, c01, accumulate);
  store_row(c + 1 * 16, c10, c11, accumulate);
  store_row(c + 2 * 16, c20, c21, accumulate);
  store_row(c + 3 * 16, c30, c31, accumulate);
  store_row(c + 4 * 16, c40, c41, accumulate);
  store_row(c + 5 * 16, c50, c51, accumulate);
}

// The last panel when it holds at most 3 rows (M % 6 in 1..3): the same
// sums for rows [0, rows) only, half the multiplies of the full tile (6
// accumulators: GCC keeps them in registers, no assembly needed).
inline void tile_tail(const int32_t* a, const int16_t* b, int64_t pairs, int64_t rows,
                      int32_t* c, bool accumulate) {
  __m256i acc[3][2] = {};
  for (int64_t q = 0; q < pairs; ++q, a += kTileRows, b += 32) {
    const __m256i w0 = load256(b), w1 = load256(b + 16);
    for (int64_t r = 0; r < 3; ++r) {
      if (r >= rows) break;
      const __m256i x = _mm256_set1_epi32(a[r]);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
    }
  }
  for (int64_t r = 0; r < rows; ++r) store_row(c + r * 16, acc[r][0], acc[r][1], accumulate);
}

// A last strip of at most 8 columns: c[0..rows)[0..8) (+)= the sums of two
// panels (a0: rows 0-5, a1: rows 6-11; pass a1 = a0 with rows <= 6 for one
// panel) against the first 8 columns of the packed strip b (its other 8
// are not read). Half the multiplies of two full tiles; 12 accumulators, 1
// strip vector (ymm12), the broadcast (ymm14) and one product (ymm15), in
// assembly for the same reason as tile(). Lanes 8-15 of c are untouched.
inline void tile_half(const int32_t* a0, const int32_t* a1, const int16_t* b, int64_t pairs,
                      int64_t rows, int32_t* c, bool accumulate) {
  // Accumulators are outputs only (zeroed in the assembly): asm allows 30
  // operands and a read-write one counts twice.
  __m256i acc[12];
  const int64_t a1_offset = (a1 - a0) * static_cast<int64_t>(sizeof(int32_t));
  asm volatile(
      "vpxor %[c0], %[c0], %[c0]\n\t"
      "vpxor %[c1], %[c1], %[c1]\n\t"
      "vpxor %[c2], %[c2], %[c2]\n\t"
      "vpxor %[c3], %[c3], %[c3]\n\t"
      "vpxor %[c4], %[c4], %[c4]\n\t"
      "vpxor %[c5], %[c5], %[c5]\n\t"
      "vpxor %[c6], %[c6], %[c6]\n\t"
      "vpxor %[c7], %[c7], %[c7]\n\t"
      "vpxor %[c8], %[c8], %[c8]\n\t"
      "vpxor %[c9], %[c9], %[c9]\n\t"
      "vpxor %[c10], %[c10], %[c10]\n\t"
      "vpxor %[c11], %[c11], %[c11]\n\t"
      "1:\n\t"
      "vmovdqu (%[b]), %%ymm12\n\t"
      "vpbroadcastd 0(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c0], %[c0]\n\t"
      "vpbroadcastd 4(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c1], %[c1]\n\t"
      "vpbroadcastd 8(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c2], %[c2]\n\t"
      "vpbroadcastd 12(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c3], %[c3]\n\t"
      "vpbroadcastd 16(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c4], %[c4]\n\t"
      "vpbroadcastd 20(%[a]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c5], %[c5]\n\t"
      "vpbroadcastd 0(%[a],%[d]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c6], %[c6]\n\t"
      "vpbroadcastd 4(%[a],%[d]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c7], %[c7]\n\t"
      "vpbroadcastd 8(%[a],%[d]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c8], %[c8]\n\t"
      "vpbroadcastd 12(%[a],%[d]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c9], %[c9]\n\t"
      "vpbroadcastd 16(%[a],%[d]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c10], %[c10]\n\t"
      "vpbroadcastd 20(%[a],%[d]), %%ymm14\n\t"
      "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
      "vpaddd %%ymm15, %[c11], %[c11]\n\t"
      "add $24, %[a]\n\t"
      "add $64, %[b]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      : [c0] "=&x"(acc[0]), [c1] "=&x"(acc[1]), [c2] "=&x"(acc[2]), [c3] "=&x"(acc[3]), [c4] "=&x"(acc[4]), [c5] "=&x"(acc[5]), [c6] "=&x"(acc[6]), [c7] "=&x"(acc[7]), [c8] "=&x"(acc[8]), [c9] "=&x"(acc[9]), [c10] "=&x"(acc[10]), [c11] "=&x"(acc[11]),
        [a] "+r"(a0), [b] "+r"(b), [n] "+r"(pairs)
      : [d] "r"(a1_offset)
      : "cc", "memory", "xmm12", "xmm14", "xmm15");
  for (int64_t r = 0; r < rows; ++r) {
    __m256i v = acc[r];
    if (accumulate) v = _mm256_add_epi32(v, load256(c + r * kTileCols));
    store256(c + r * kTileCols, v);
  }
}

}  // namespace int8_tile
}  // namespace quantized
}  // namespace torchedge
