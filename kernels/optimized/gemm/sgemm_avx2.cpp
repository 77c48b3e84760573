// The AVX2 + FMA SGEMM: a 6 x 16 register tile (12 ymm accumulators, two
// ymm of B, one broadcast of A: 15 of the 16 registers). Compiled with
// -mavx2 -mfma; entered only when best_isa() >= kAvx2.
#include <immintrin.h>

#include "kernels/optimized/gemm/sgemm_driver.h"
#include "kernels/optimized/vec/vec_math_avx2.h"

namespace torchedge {
namespace optimized {
namespace {

#include "kernels/optimized/gemm/sgemm_pack_x86.h"

struct Avx2Kernel {
  static constexpr int kMr = 6;
  static constexpr int kNr = 16;
  // A strip 6 x 256 (6 KiB) + B strip 256 x 16 (16 KiB) fit a 32 KiB L1;
  // an A block of 120 x 256 (120 KiB) sits in L2; the B panel in L2/L3.
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 120;
  static constexpr int64_t kNc = 1536;
  // The epilogue (bias, addend, clamp) is applied to the accumulators as the
  // last K block's tile is stored (sgemm_driver.h, TileEpilogue), not by a
  // second pass over the stored tile: MobileNetV2's 1x1 layers (K = 16-96)
  // spent ~10 % of the model's time re-reading their outputs for the bias.
  static constexpr bool kFusedEpilogue = true;

  static void micro(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc,
                    bool accumulate, const sgemm_driver::TileEpilogue* epi) {
    tile6<false>(kc, pa, pb, kNr, c, ldc, accumulate, epi);
  }

  // The full tile with B rows ldb apart (kDirect: read in place, prefetching
  // the next strip's row; else the packed strip, ldb = kNr). The twelve
  // accumulators are named: as an array GCC keeps them on the stack.
  template <bool kDirect>
  static inline void tile6(int64_t kc, const float* pa, const float* pb, int64_t ldb, float* c,
                           int64_t ldc, bool accumulate, const sgemm_driver::TileEpilogue* epi) {
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (int64_t k = 0; k < kc; ++k) {
      const __m256 b0 = kDirect ? _mm256_loadu_ps(pb) : _mm256_load_ps(pb);
      const __m256 b1 = kDirect ? _mm256_loadu_ps(pb + 8) : _mm256_load_ps(pb + 8);
      if (kDirect) _mm_prefetch(reinterpret_cast<const char*>(pb + kNr), _MM_HINT_T0);
      __m256 a = _mm256_broadcast_ss(pa + 0);
      c00 = _mm256_fmadd_ps(a, b0, c00);
      c01 = _mm256_fmadd_ps(a, b1, c01);
      a = _mm256_broadcast_ss(pa + 1);
      c10 = _mm256_fmadd_ps(a, b0, c10);
      c11 = _mm256_fmadd_ps(a, b1, c11);
      a = _mm256_broadcast_ss(pa + 2);
      c20 = _mm256_fmadd_ps(a, b0, c20);
      c21 = _mm256_fmadd_ps(a, b1, c21);
      a = _mm256_broadcast_ss(pa + 3);
      c30 = _mm256_fmadd_ps(a, b0, c30);
      c31 = _mm256_fmadd_ps(a, b1, c31);
      a = _mm256_broadcast_ss(pa + 4);
      c40 = _mm256_fmadd_ps(a, b0, c40);
      c41 = _mm256_fmadd_ps(a, b1, c41);
      a = _mm256_broadcast_ss(pa + 5);
      c50 = _mm256_fmadd_ps(a, b0, c50);
      c51 = _mm256_fmadd_ps(a, b1, c51);
      pa += kMr;
      pb += ldb;
    }
    store_row(c, ldc, 0, c00, c01, accumulate, epi);
    store_row(c, ldc, 1, c10, c11, accumulate, epi);
    store_row(c, ldc, 2, c20, c21, accumulate, epi);
    store_row(c, ldc, 3, c30, c31, accumulate, epi);
    store_row(c, ldc, 4, c40, c41, accumulate, epi);
    store_row(c, ldc, 5, c50, c51, accumulate, epi);
  }

  // The same tile with A read in place (no packing): rows a, a + lda, ...,
  // a + 5 * lda, k-th column at offset k. For small N, where a packed A
  // strip would be used by only a few B strips, packing A costs about as
  // much as the FMAs it feeds (sgemm_driver.h, kDirectAMaxN). Only the
  // first `cols` columns of the tile are needed: cols <= 8 (a narrow last
  // strip, e.g. N = 49) runs half the FMAs and touches columns 0-7 only.
  static void micro_direct_a(int64_t kc, const float* a, int64_t lda, const float* pb, float* c,
                             int64_t ldc, bool accumulate, int64_t cols,
                             const sgemm_driver::TileEpilogue* epi) {
    if (cols <= 8) {
      direct_a_tile<false>(kc, a, lda, pb, c, ldc, accumulate, epi);
    } else {
      direct_a_tile<true>(kc, a, lda, pb, c, ldc, accumulate, epi);
    }
  }

  template <bool kWide>
  static inline void direct_a_tile(int64_t kc, const float* a, int64_t lda, const float* pb,
                                   float* c, int64_t ldc, bool accumulate,
                                   const sgemm_driver::TileEpilogue* epi) {
    const float* a0 = a;
    const float* a1 = a + lda;
    const float* a2 = a + 2 * lda;
    const float* a3 = a + 3 * lda;
    const float* a4 = a + 4 * lda;
    const float* a5 = a + 5 * lda;
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (int64_t k = 0; k < kc; ++k) {
      const __m256 b0 = _mm256_load_ps(pb);
      __m256 x = _mm256_broadcast_ss(a0 + k);
      c00 = _mm256_fmadd_ps(x, b0, c00);
      if constexpr (kWide) c01 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c01);
      x = _mm256_broadcast_ss(a1 + k);
      c10 = _mm256_fmadd_ps(x, b0, c10);
      if constexpr (kWide) c11 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c11);
      x = _mm256_broadcast_ss(a2 + k);
      c20 = _mm256_fmadd_ps(x, b0, c20);
      if constexpr (kWide) c21 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c21);
      x = _mm256_broadcast_ss(a3 + k);
      c30 = _mm256_fmadd_ps(x, b0, c30);
      if constexpr (kWide) c31 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c31);
      x = _mm256_broadcast_ss(a4 + k);
      c40 = _mm256_fmadd_ps(x, b0, c40);
      if constexpr (kWide) c41 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c41);
      x = _mm256_broadcast_ss(a5 + k);
      c50 = _mm256_fmadd_ps(x, b0, c50);
      if constexpr (kWide) c51 = _mm256_fmadd_ps(x, _mm256_load_ps(pb + 8), c51);
      pb += kNr;
    }
    if constexpr (kWide) {
      store_row(c, ldc, 0, c00, c01, accumulate, epi);
      store_row(c, ldc, 1, c10, c11, accumulate, epi);
      store_row(c, ldc, 2, c20, c21, accumulate, epi);
      store_row(c, ldc, 3, c30, c31, accumulate, epi);
      store_row(c, ldc, 4, c40, c41, accumulate, epi);
      store_row(c, ldc, 5, c50, c51, accumulate, epi);
    } else {
      // Only columns 0-7 are used (the caller's contract); the epilogue
      // reads no addend or column bias past them.
      store_half(c, ldc, 0, c00, accumulate, epi);
      store_half(c, ldc, 1, c10, accumulate, epi);
      store_half(c, ldc, 2, c20, accumulate, epi);
      store_half(c, ldc, 3, c30, accumulate, epi);
      store_half(c, ldc, 4, c40, accumulate, epi);
      store_half(c, ldc, 5, c50, accumulate, epi);
    }
  }

  // micro() for rows < kMr (the last strip of M = 128 has 2 rows, of M =
  // 197 has 5): only those rows are computed and stored.
  static void micro_rows(int rows, int64_t kc, const float* pa, const float* pb, float* c,
                         int64_t ldc, bool accumulate, const sgemm_driver::TileEpilogue* epi) {
    switch (rows) {
      case 1: return micro_r<1, false>(kc, pa, pb, kNr, c, ldc, accumulate, epi);
      case 2: return micro_r<2, false>(kc, pa, pb, kNr, c, ldc, accumulate, epi);
      case 3: return micro_r<3, false>(kc, pa, pb, kNr, c, ldc, accumulate, epi);
      case 4: return micro_r<4, false>(kc, pa, pb, kNr, c, ldc, accumulate, epi);
      default: return micro_r<5, false>(kc, pa, pb, kNr, c, ldc, accumulate, epi);
    }
  }

  // A tile of `rows` <= kMr rows with B read in place (sgemm_driver.h,
  // kDirectBMaxM): row k of its 16 columns at b + k * ldb. Each k step
  // prefetches the same row of the next strip, which the next tile reads:
  // the rows are kc separate streams the hardware prefetcher does not follow.
  static void micro_direct_b(int rows, int64_t kc, const float* pa, const float* b, int64_t ldb,
                             float* c, int64_t ldc, bool accumulate,
                             const sgemm_driver::TileEpilogue* epi) {
    switch (rows) {
      case 1: return micro_r<1, true>(kc, pa, b, ldb, c, ldc, accumulate, epi);
      case 2: return micro_r<2, true>(kc, pa, b, ldb, c, ldc, accumulate, epi);
      case 3: return micro_r<3, true>(kc, pa, b, ldb, c, ldc, accumulate, epi);
      case 4: return micro_r<4, true>(kc, pa, b, ldb, c, ldc, accumulate, epi);
      case 5: return micro_r<5, true>(kc, pa, b, ldb, c, ldc, accumulate, epi);
      default: return tile6<true>(kc, pa, b, ldb, c, ldc, accumulate, epi);
    }
  }

  template <int kRows, bool kDirect>
  static inline void micro_r(int64_t kc, const float* pa, const float* pb, int64_t ldb, float* c,
                             int64_t ldc, bool accumulate, const sgemm_driver::TileEpilogue* epi) {
    // Every loop over rows fully unrolled, or GCC keeps acc in memory and
    // stores it on each k step (5 rows: 10 stores per 10 FMAs).
    __m256 acc[kRows][2];
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (int64_t k = 0; k < kc; ++k) {
      const __m256 b0 = _mm256_loadu_ps(pb);
      const __m256 b1 = _mm256_loadu_ps(pb + 8);
      if (kDirect) _mm_prefetch(reinterpret_cast<const char*>(pb + kNr), _MM_HINT_T0);
#pragma GCC unroll 6
      for (int i = 0; i < kRows; ++i) {
        const __m256 a = _mm256_broadcast_ss(pa + i);
        acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
      }
      pa += kMr;
      pb += ldb;
    }
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) store_row(c, ldc, i, acc[i][0], acc[i][1], accumulate, epi);
  }

  // gemv_strips (sgemm_driver.h): kStrips (1..4) prepacked strips at
  // once, one accumulator pair each, k in order from zero as micro_r sums
  // a one-row tile (so the results are bit-identical to it); the strips'
  // independent chains hide the FMA latency and their streams overlap.
  template <int kStrips>
  static inline void gemv_strips(int64_t kc, const float* a, const float* pb,
                                 int64_t strip_stride, float* c, bool accumulate) {
    __m256 acc[kStrips][2];
#pragma GCC unroll 4
    for (int s = 0; s < kStrips; ++s) acc[s][0] = acc[s][1] = _mm256_setzero_ps();
    for (int64_t k = 0; k < kc; ++k, pb += kNr) {
      const __m256 x = _mm256_broadcast_ss(a + k);
#pragma GCC unroll 4
      for (int s = 0; s < kStrips; ++s) {
        acc[s][0] = _mm256_fmadd_ps(x, _mm256_load_ps(pb + s * strip_stride), acc[s][0]);
        acc[s][1] = _mm256_fmadd_ps(x, _mm256_load_ps(pb + s * strip_stride + 8), acc[s][1]);
      }
    }
#pragma GCC unroll 4
    for (int s = 0; s < kStrips; ++s) store_row(c, kNr, s, acc[s][0], acc[s][1], accumulate, nullptr);
  }

  // Packing (sgemm_driver.h contract) with whole-vector moves: the scalar
  // transposing loops took 13 % of BERT-MiniLM's GEMM time (A and B
  // together, perf annotate), as much as a quarter of the FMAs they feed.
  static void pack_a_strip(const float* a, int64_t lda, int64_t rows, int64_t kc, float* out) {
    const __m256 zero = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i) r[i] = i < rows ? _mm256_loadu_ps(a + i * lda + k) : zero;
      transpose8(r);  // r[t] = column k + t: rows 0-5, then two zeros
      float* o = out + k * kMr;
      // Overlapping 8-wide stores, each overwriting the previous one's two
      // zeros; the last one stores 6 floats exactly (no write past the strip).
      for (int t = 0; t < 7; ++t) _mm256_storeu_ps(o + t * kMr, r[t]);
      _mm_storeu_ps(o + 7 * kMr, _mm256_castps256_ps128(r[7]));
      _mm_storel_pi(reinterpret_cast<__m64*>(o + 7 * kMr + 4), _mm256_extractf128_ps(r[7], 1));
    }
    for (; k < kc; ++k) {
      for (int i = 0; i < kMr; ++i) out[k * kMr + i] = i < rows ? a[i * lda + k] : 0.0f;
    }
  }

  // Row by row, so the reads of B are sequential (the hardware prefetcher
  // follows them); the strips are written 64 bytes at a time.
  static void pack_b_rows(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
    const int64_t full = nc / kNr * kNr;
    const int64_t rem = nc - full;
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rem)), lanes);
    const __m256i mask1 =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rem) - 8), lanes);
    for (int64_t k = 0; k < kc; ++k) {
      const float* row = b + k * ldb;
      float* out = dst + k * kNr;
      for (int64_t s = 0; s < full; s += kNr) {
        _mm256_storeu_ps(out + s * kc, _mm256_loadu_ps(row + s));
        _mm256_storeu_ps(out + s * kc + 8, _mm256_loadu_ps(row + s + 8));
      }
      if (rem > 0) {  // masked lanes read nothing and load zeros
        _mm256_storeu_ps(out + full * kc, _mm256_maskload_ps(row + full, mask0));
        _mm256_storeu_ps(out + full * kc + 8, _mm256_maskload_ps(row + full + 8, mask1));
      }
    }
  }

  // B^T row-major ([N, K] weight): sgemm_pack_x86.h.
  static void pack_b_cols(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
    pack_b_cols16(b, ldb, kc, nc, dst);
  }

  // The epilogue without an addend (linear layers' bias, fused clamps),
  // 8 columns at a time; max/min take c second so a NaN stays NaN.
  static void bias_clamp_row(float* c, int64_t cols, float alpha, float row_bias,
                             const float* col_bias, float lo, float hi) {
    const __m256 va = _mm256_set1_ps(alpha), vr = _mm256_set1_ps(row_bias);
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    int64_t j = 0;
    for (; j + 8 <= cols; j += 8) {
      __m256 v = _mm256_add_ps(_mm256_mul_ps(va, _mm256_loadu_ps(c + j)), vr);
      if (col_bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(col_bias + j));
      v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, v));
      _mm256_storeu_ps(c + j, v);
    }
    for (; j < cols; ++j) {
      float v = alpha * c[j] + row_bias;
      if (col_bias != nullptr) v += col_bias[j];
      v = v < lo ? lo : v;
      c[j] = v > hi ? hi : v;
    }
  }

  // TileEpilogue's operations on columns [j, j + 8) of tile row i, in its
  // order; max/min take v second so a NaN stays NaN.
  static inline __m256 finish(__m256 v, const sgemm_driver::TileEpilogue& e, int64_t i,
                              int64_t j) {
    v = _mm256_mul_ps(_mm256_set1_ps(e.alpha), v);
    v = _mm256_add_ps(v, _mm256_set1_ps(e.row_bias == nullptr ? 0.0f : e.row_bias[i]));
    if (e.col_bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(e.col_bias + j));
    if (e.addend != nullptr) {
      const __m256 add = _mm256_loadu_ps(e.addend + i * e.ld_addend + j);
      v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_set1_ps(e.beta), add));
    }
    v = _mm256_min_ps(_mm256_set1_ps(e.max), _mm256_max_ps(_mm256_set1_ps(e.min), v));
    return e.gelu ? vec_avx2::gelu_erf(v) : v;
  }

  // The fused epilogue's GELU over one row of an edge tile (sgemm_driver.h):
  // the tail through a zero-padded copy, so every element takes the vector path.
  static void gelu_row(float* c, int64_t cols) {
    int64_t j = 0;
    for (; j + 8 <= cols; j += 8) _mm256_storeu_ps(c + j, vec_avx2::gelu_erf(_mm256_loadu_ps(c + j)));
    if (j == cols) return;
    alignas(32) float tail[8] = {};
    for (int64_t t = 0; t < cols - j; ++t) tail[t] = c[j + t];
    _mm256_store_ps(tail, vec_avx2::gelu_erf(_mm256_load_ps(tail)));
    for (int64_t t = 0; t < cols - j; ++t) c[j + t] = tail[t];
  }

  // Row i of a tile at c (rows ldc apart): columns 0-7 only.
  static inline void store_half(float* c, int64_t ldc, int64_t i, __m256 lo, bool accumulate,
                                const sgemm_driver::TileEpilogue* epi) {
    c += i * ldc;
    if (accumulate) lo = _mm256_add_ps(lo, _mm256_loadu_ps(c));
    if (epi != nullptr) lo = finish(lo, *epi, i, 0);
    _mm256_storeu_ps(c, lo);
  }

  // Row i of a tile at c (rows ldc apart): columns 0-15.
  static inline void store_row(float* c, int64_t ldc, int64_t i, __m256 lo, __m256 hi,
                               bool accumulate, const sgemm_driver::TileEpilogue* epi) {
    c += i * ldc;
    if (accumulate) {
      lo = _mm256_add_ps(lo, _mm256_loadu_ps(c));
      hi = _mm256_add_ps(hi, _mm256_loadu_ps(c + 8));
    }
    if (epi != nullptr) {
      lo = finish(lo, *epi, i, 0);
      hi = finish(hi, *epi, i, 8);
    }
    _mm256_storeu_ps(c, lo);
    _mm256_storeu_ps(c + 8, hi);
  }
};

}  // namespace

namespace detail {
Error sgemm_avx2(KernelContext& ctx, const SgemmProblem& p) {
  return sgemm_driver::run<Avx2Kernel>(ctx, p);
}
size_t sgemm_scratch_bytes_avx2(const SgemmProblem& p) {
  return sgemm_driver::scratch_bytes<Avx2Kernel>(p);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
