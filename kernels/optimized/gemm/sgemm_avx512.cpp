// The AVX-512 SGEMM: a 12 x 32 register tile over two 16-wide B strips
// (24 zmm accumulators, one zmm of each strip per k step, A broadcast from
// memory into the FMAs as a {1to16} operand: 14 loads per 24 FMAs).
// Compiled with -mavx512f/dq/bw/vl; entered only when best_isa() ==
// kAvx512.
//
// Why two 16-wide strips, not one 32-wide strip: B keeps the AVX2 kernel's
// 16-float strips (sgemm_driver.h, kStrips), so linear weights packed ahead
// of time (weight_prepacking.py) and every B packer serve both ISAs and are
// read in place; the previous 6 x 32 kernel repacked those weights on every
// call and lost end to end. Why not one strip: a 16-column tile needs one
// broadcast load per FMA, and on an Ice Lake class Xeon (2 vCPUs) such
// tiles ran at ~88 GFLOP/s against ~163 for 12 x 32 (register-only loops,
// 12 x 16, 14 x 16 and 8 x 16 alike; Ice Lake class Xeon).
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -W(maybe-)uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/optimized/gemm/sgemm_driver.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

#include "kernels/optimized/gemm/sgemm_pack_x86.h"

using sgemm_driver::TileEpilogue;

struct Avx512Kernel {
  static constexpr int kMr = 12;
  static constexpr int kNr = 16;
  static constexpr int kStrips = 2;
  // A strip 12 x 256 (12 KiB) + two B strips 256 x 16 (32 KiB) fit a 48 KiB
  // L1; an A block of 120 x 256 (120 KiB) sits in L2; the B panel in L2/L3.
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 120;
  static constexpr int64_t kNc = 1536;
  static constexpr bool kFusedEpilogue = true;  // as the AVX2 kernel (sgemm_avx2.cpp)

  // sgemm_driver.h's wide-tile contract: `rows` <= kMr rows, `strips` <= 2
  // strips; element (k, j) of strip s at pb[s * strip_stride + k * ldb + j].
  // B packed by the driver or ahead of time is 64-byte aligned with ldb =
  // kNr: aligned loads. Otherwise (a B read in place, whose rows may be 16
  // floats apart too: a transposed A with N = 16) unaligned loads, and each
  // k step prefetches the same row of the next tile's strips (kc separate
  // streams the hardware prefetcher does not follow).
  static void micro_strips(int rows, int strips, int64_t kc, const float* pa, const float* pb,
                           int64_t strip_stride, int64_t ldb, float* c, int64_t ldc,
                           bool accumulate, const TileEpilogue* epi) {
    const bool aligned = ldb == kNr && reinterpret_cast<uintptr_t>(pb) % 64 == 0 &&
                         (strips == 1 || strip_stride % kNr == 0);
    if (aligned) return by_strips<true>(rows, strips, kc, pa, pb, strip_stride, ldb, c, ldc,
                                        accumulate, epi);
    by_strips<false>(rows, strips, kc, pa, pb, strip_stride, ldb, c, ldc, accumulate, epi);
  }

  template <bool kPacked>
  static void by_strips(int rows, int strips, int64_t kc, const float* pa, const float* pb,
                        int64_t strip_stride, int64_t ldb, float* c, int64_t ldc,
                        bool accumulate, const TileEpilogue* epi) {
    if (strips == 2) {
      return tile_rows<2, kPacked>(rows, kc, pa, pb, strip_stride, ldb, c, ldc, accumulate, epi);
    }
    tile_rows<1, kPacked>(rows, kc, pa, pb, strip_stride, ldb, c, ldc, accumulate, epi);
  }

  // tile<rows> for a run-time row count in [1, kMr].
  template <int kS, bool kPacked, int kRows = 1>
  static void tile_rows(int rows, int64_t kc, const float* pa, const float* pb,
                        int64_t strip_stride, int64_t ldb, float* c, int64_t ldc,
                        bool accumulate, const TileEpilogue* epi) {
    if constexpr (kRows < kMr) {
      if (rows > kRows) {
        return tile_rows<kS, kPacked, kRows + 1>(rows, kc, pa, pb, strip_stride, ldb, c, ldc,
                                                 accumulate, epi);
      }
    }
    tile<kRows, kS, kPacked>(kc, pa, pb, strip_stride, ldb, c, ldc, accumulate, epi);
  }

  // kRows x (kS * 16) of C. Every loop over rows and strips is fully
  // unrolled, so the accumulators stay in registers.
  template <int kRows, int kS, bool kPacked>
  static inline void tile(int64_t kc, const float* pa, const float* pb, int64_t strip_stride,
                          int64_t ldb, float* c, int64_t ldc, bool accumulate,
                          const TileEpilogue* epi) {
    __m512 acc[kRows][kS];
    zero_tile<kRows, kS>(acc);
    const float* pb1 = pb + (kS > 1 ? strip_stride : 0);
    for (int64_t k = 0; k < kc; ++k) {
      __m512 b[kS];
      b[0] = kPacked ? _mm512_load_ps(pb) : _mm512_loadu_ps(pb);
      if constexpr (kS > 1) b[1] = kPacked ? _mm512_load_ps(pb1) : _mm512_loadu_ps(pb1);
      if (!kPacked) {
        _mm_prefetch(reinterpret_cast<const char*>(pb + kS * kNr), _MM_HINT_T0);
        if (kS > 1) _mm_prefetch(reinterpret_cast<const char*>(pb + kS * kNr + kNr), _MM_HINT_T0);
      }
#pragma GCC unroll 16
      for (int i = 0; i < kRows; ++i) {
        const __m512 a = _mm512_set1_ps(pa[i]);
#pragma GCC unroll 2
        for (int s = 0; s < kS; ++s) acc[i][s] = _mm512_fmadd_ps(a, b[s], acc[i][s]);
      }
      pa += kMr;
      pb += ldb;
      pb1 += ldb;
    }
    store_tile<kRows, kS>(acc, c, ldc, accumulate, epi);
  }

  // kMr rows of A read in place (row i at a + i * lda) x `strips` packed
  // strips: for small N, where a packed A element would feed only 2 * N
  // flops (sgemm_driver.h, kDirectAMaxN).
  static void micro_strips_direct_a(int strips, int64_t kc, const float* a, int64_t lda,
                                    const float* pb, int64_t strip_stride, float* c, int64_t ldc,
                                    bool accumulate, const TileEpilogue* epi) {
    if (strips == 2) return direct_a_tile<2>(kc, a, lda, pb, strip_stride, c, ldc, accumulate, epi);
    direct_a_tile<1>(kc, a, lda, pb, strip_stride, c, ldc, accumulate, epi);
  }

  template <int kS>
  static inline void direct_a_tile(int64_t kc, const float* a, int64_t lda, const float* pb,
                                   int64_t strip_stride, float* c, int64_t ldc, bool accumulate,
                                   const TileEpilogue* epi) {
    // Row i at rows[i / 3] + (i % 3) * lda: four row pointers and lda, so
    // the twelve broadcasts need no more registers than x86 has.
    const float* r0 = a;
    const float* r3 = a + 3 * lda;
    const float* r6 = a + 6 * lda;
    const float* r9 = a + 9 * lda;
    __m512 acc[kMr][kS];
    zero_tile<kMr, kS>(acc);
    const float* pb1 = pb + (kS > 1 ? strip_stride : 0);
    for (int64_t k = 0; k < kc; ++k) {
      __m512 b[kS];
      b[0] = _mm512_load_ps(pb + k * kNr);
      if constexpr (kS > 1) b[1] = _mm512_load_ps(pb1 + k * kNr);
      const float* base[4] = {r0 + k, r3 + k, r6 + k, r9 + k};
#pragma GCC unroll 16
      for (int i = 0; i < kMr; ++i) {
        const __m512 x = _mm512_set1_ps(base[i / 3][(i % 3) * lda]);
#pragma GCC unroll 2
        for (int s = 0; s < kS; ++s) acc[i][s] = _mm512_fmadd_ps(x, b[s], acc[i][s]);
      }
    }
    store_tile<kMr, kS>(acc, c, ldc, accumulate, epi);
  }

  // One kMr-tall strip of A (sgemm_driver.h's pack_a layout) from `rows`
  // rows of a unit-column-stride A: 8 k at a time, rows 0-7 and 8-11
  // through two 8 x 8 transposes, each column stored as 8 + 4 floats.
  static void pack_a_strip(const float* a, int64_t lda, int64_t rows, int64_t kc, float* out) {
    static_assert(kMr > 8 && kMr <= 16, "two 8-row transposes");
    const __m256 zero = _mm256_setzero_ps();
    constexpr __mmask8 kHighRows = static_cast<__mmask8>((1u << (kMr - 8)) - 1);
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      __m256 lo[8], hi[8];
      for (int i = 0; i < 8; ++i) {
        lo[i] = i < rows ? _mm256_loadu_ps(a + i * lda + k) : zero;
        hi[i] = i + 8 < rows && i + 8 < kMr ? _mm256_loadu_ps(a + (i + 8) * lda + k) : zero;
      }
      transpose8(lo);
      transpose8(hi);
      float* o = out + k * kMr;
      for (int t = 0; t < 8; ++t) {
        _mm256_storeu_ps(o + t * kMr, lo[t]);
        _mm256_mask_storeu_ps(o + t * kMr + 8, kHighRows, hi[t]);
      }
    }
    for (; k < kc; ++k) {
      for (int i = 0; i < kMr; ++i) out[k * kMr + i] = i < rows ? a[i * lda + k] : 0.0f;
    }
  }

  // Row by row, so the reads of B are sequential; one zmm per strip row,
  // a masked load (zeros past nc) for the partial last strip.
  static void pack_b_rows(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
    const int64_t full = nc / kNr * kNr;
    const __mmask16 tail = static_cast<__mmask16>((1u << (nc - full)) - 1);
    for (int64_t k = 0; k < kc; ++k) {
      const float* row = b + k * ldb;
      float* out = dst + k * kNr;
      for (int64_t s = 0; s < full; s += kNr) {
        _mm512_storeu_ps(out + s * kc, _mm512_loadu_ps(row + s));
      }
      if (tail != 0) _mm512_storeu_ps(out + full * kc, _mm512_maskz_loadu_ps(tail, row + full));
    }
  }

  // B^T row-major ([N, K] weight): sgemm_pack_x86.h.
  static void pack_b_cols(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
    pack_b_cols16(b, ldb, kc, nc, dst);
  }

  // The epilogue without an addend (sgemm_driver.h), 16 columns at a time;
  // max/min take c second so a NaN stays NaN.
  static void bias_clamp_row(float* c, int64_t cols, float alpha, float row_bias,
                             const float* col_bias, float lo, float hi) {
    const __m512 va = _mm512_set1_ps(alpha), vr = _mm512_set1_ps(row_bias);
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    for (int64_t j = 0; j < cols; j += kNr) {
      const __mmask16 m =
          cols - j >= kNr ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (cols - j)) - 1);
      __m512 v = _mm512_add_ps(_mm512_mul_ps(va, _mm512_maskz_loadu_ps(m, c + j)), vr);
      if (col_bias != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, col_bias + j));
      v = _mm512_min_ps(vhi, _mm512_max_ps(vlo, v));
      _mm512_mask_storeu_ps(c + j, m, v);
    }
  }

  // The accumulators of a kRows x (kS * 16) tile: zeroed, and stored (+ C
  // when accumulating, then the epilogue). Fully unrolled and inlined, so
  // they stay in registers.
  template <int kRows, int kS>
  __attribute__((always_inline)) static inline void zero_tile(__m512 (&acc)[kRows][kS]) {
#pragma GCC unroll 16
    for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
      for (int s = 0; s < kS; ++s) acc[i][s] = _mm512_setzero_ps();
    }
  }

  template <int kRows, int kS>
  __attribute__((always_inline)) static inline void store_tile(__m512 (&acc)[kRows][kS],
                                                               float* c, int64_t ldc,
                                                               bool accumulate,
                                                               const TileEpilogue* epi) {
#pragma GCC unroll 16
    for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
      for (int s = 0; s < kS; ++s) store16(c, ldc, i, s * kNr, acc[i][s], accumulate, epi);
    }
  }

  // TileEpilogue's operations on columns [j, j + 16) of tile row i, in its
  // order (the AVX2 kernel's, so both agree bit for bit); max/min take v
  // second so a NaN stays NaN.
  static inline __m512 finish(__m512 v, const TileEpilogue& e, int64_t i, int64_t j) {
    v = _mm512_mul_ps(_mm512_set1_ps(e.alpha), v);
    v = _mm512_add_ps(v, _mm512_set1_ps(e.row_bias == nullptr ? 0.0f : e.row_bias[i]));
    if (e.col_bias != nullptr) v = _mm512_add_ps(v, _mm512_loadu_ps(e.col_bias + j));
    if (e.addend != nullptr) {
      const __m512 add = _mm512_loadu_ps(e.addend + i * e.ld_addend + j);
      v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_set1_ps(e.beta), add));
    }
    v = _mm512_min_ps(_mm512_set1_ps(e.max), _mm512_max_ps(_mm512_set1_ps(e.min), v));
    return e.gelu ? vec_avx512::gelu_erf(v) : v;
  }

  // The fused epilogue's GELU over one row of an edge tile (sgemm_driver.h).
  static void gelu_row(float* c, int64_t cols) {
    for (int64_t j = 0; j < cols; j += kNr) {
      const __mmask16 m =
          cols - j >= kNr ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (cols - j)) - 1);
      _mm512_mask_storeu_ps(c + j, m, vec_avx512::gelu_erf(_mm512_maskz_loadu_ps(m, c + j)));
    }
  }

  // Columns [j, j + 16) of tile row i at c (rows ldc apart).
  static inline void store16(float* c, int64_t ldc, int64_t i, int64_t j, __m512 v,
                             bool accumulate, const TileEpilogue* epi) {
    c += i * ldc + j;
    if (accumulate) v = _mm512_add_ps(v, _mm512_loadu_ps(c));
    if (epi != nullptr) v = finish(v, *epi, i, j);
    _mm512_storeu_ps(c, v);
  }
};

}  // namespace

namespace detail {
Error sgemm_avx512(KernelContext& ctx, const SgemmProblem& p) {
  return sgemm_driver::run<Avx512Kernel>(ctx, p);
}
size_t sgemm_scratch_bytes_avx512(const SgemmProblem& p) {
  return sgemm_driver::scratch_bytes<Avx512Kernel>(p);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
