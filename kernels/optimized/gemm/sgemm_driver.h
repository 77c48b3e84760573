// torchedge/kernels/optimized/gemm/sgemm_driver.h
//
// The blocked, packed, threaded SGEMM loop nest of sgemm.h, as a template
// over a micro-kernel description:
//
//   struct Kernel {
//     static constexpr int kMr, kNr;              // register tile
//     static constexpr int64_t kKc, kMc, kNc;     // cache blocks (kMc % kMr == 0,
//                                                 // kKc % 8 == 0)
//     // c[i * ldc + j] (+)= sum_k pa[k * kMr + i] * pb[k * kNr + j], full tile.
//     static void micro(int64_t kc, const float* pa, const float* pb, float* c,
//                       int64_t ldc, bool accumulate);
//   };
//
// and, optionally (detected; portable code below otherwise), faster pieces
// for the same contract: micro_rows (a tile of fewer than kMr rows),
// micro_direct_a (A read in place), micro_direct_b (B read in place),
// pack_a_strip, pack_b_rows, pack_b_cols and bias_clamp_row; their
// signatures are at the Has* traits below. A kernel that declares
// `static constexpr bool kFusedEpilogue = true` takes one more argument in
// micro, micro_rows, micro_direct_a and micro_direct_b, a
// `const TileEpilogue*` (below): when not null, the tile is the last K block
// and the kernel applies the epilogue to its accumulators before storing
// them, instead of the driver's pass over the stored tile.
//
// A kernel may instead declare `static constexpr int kStrips` > 1 (wide
// tiles): each tile then spans up to kStrips strips of kNr columns, read
// where they lie, and the kernel provides (instead of micro & co.)
//
//   static void micro_strips(int rows, int strips, int64_t kc, const float* pa,
//                            const float* pb, int64_t strip_stride, int64_t ldb,
//                            float* c, int64_t ldc, bool accumulate,
//                            const TileEpilogue* epi);
//     rows <= kMr rows x strips * kNr columns of C (all stored, at c, rows
//     ldc apart): element (k, j) of strip s is pb[s * strip_stride + k * ldb
//     + j]; pa is a kMr-tall packed strip; epi as for kFusedEpilogue.
//
// and optionally (A read in place for small N, as micro_direct_a)
//
//   static void micro_strips_direct_a(int strips, int64_t kc, const float* a, int64_t lda,
//                                     const float* pb, int64_t strip_stride, float* c,
//                                     int64_t ldc, bool accumulate, const TileEpilogue* epi);
//     kMr rows (row i at a + i * lda, unit column stride) x strips packed
//     strips (ldb = kNr).
//
// B keeps the kNr-wide strip layout (packed panel: strip_stride = kc * kNr,
// ldb = kNr; prepacked in place: K * kNr and kNr; a unit-column-stride B
// read in place: kNr and its row stride), so prepacked weights and every B
// packer serve kernels of either kind. (Why: a 16-column zmm tile needs one
// broadcast load per FMA and runs at half the FMA peak on an Ice Lake class
// Xeon, where a 12 x 32 tile over two strips reaches ~95 %.)
//
// Include this header ONLY from one ISA's translation unit (sgemm_<isa>.cpp)
// and instantiate it with a Kernel in that file's anonymous namespace: every
// function here is a template over Kernel, so each ISA gets its own copies,
// compiled with its own flags, with internal linkage (no ODR mixing of AVX2
// code into baseline callers).
//
// Loop nest per rectangle of C (one per thread):
//   for each NC panel of columns, for each KC block of K:
//     pack B panel (KC x NC)  -> NR-wide strips           (L3 / L2)
//       (skipped for B prepacked ahead of time in NR-wide strips)
//     for each MC block of rows:
//       pack A block (MC x KC) -> MR-tall strips          (L2)
//       for each NR strip: for each MR strip: micro-kernel (L1 / registers)
//         last K block: epilogue on the tile while it is hot
// K and M are cut into equal blocks (K = 384 runs as 2 x 192, not 256 + 128;
// M = 128 as 66 + 62 rows, not 120 + 8, whose 8-row block streamed the whole
// B panel again for one and a third strips).
#pragma once

#include <cstring>

#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/portable/support/gelu.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace sgemm_driver {

// Non-template helpers are `static` and std:: templates are avoided: an
// inline function with external linkage compiled here with AVX flags could be
// the copy the linker keeps for baseline callers too.
static inline int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

// Optional Kernel members (see the file comment), detected by these traits.
//
//   static void micro_rows(int rows, int64_t kc, const float* pa, const float* pb, float* c,
//                          int64_t ldc, bool accumulate);
//     micro() for the first `rows` (< kMr) rows of a tile only (pa still
//     packed kMr tall); rows past `rows` of c are not touched, so a partial
//     last strip of M is written in place instead of through a buffer.
#define TE_SGEMM_OPTIONAL_MEMBER(Trait, member)                \
  template <typename K, typename = void>                       \
  struct Trait {                                               \
    static constexpr bool value = false;                       \
  };                                                           \
  template <typename K>                                        \
  struct Trait<K, decltype(void(&K::member))> {                \
    static constexpr bool value = true;                        \
  };
TE_SGEMM_OPTIONAL_MEMBER(HasMicroRows, micro_rows)
//   static void micro_direct_a(int64_t kc, const float* a, int64_t lda,
//                              const float* pb, float* c, int64_t ldc, bool accumulate,
//                              int64_t cols)
//     a kMr-row tile with A read in place, rows lda apart, unit column
//     stride; at least the first `cols` columns of c are written, and only
//     those may be used, so c must hold kNr columns (a full tile or the edge
//     buffer).
TE_SGEMM_OPTIONAL_MEMBER(HasDirectA, micro_direct_a)
//   static void micro_direct_b(int rows, int64_t kc, const float* pa, const float* b,
//                              int64_t ldb, float* c, int64_t ldc, bool accumulate)
//     micro_rows for rows <= kMr with B read in place: row k of the tile's
//     kNr columns at b + k * ldb (unit column stride, all kNr columns
//     there, no alignment). The tile is always stored in place (full width).
TE_SGEMM_OPTIONAL_MEMBER(HasDirectB, micro_direct_b)
//   static void pack_a_strip(const float* a, int64_t lda, int64_t rows, int64_t kc, float* out);
//     one kMr-tall strip (layout of pack_a below) from `rows` <= kMr rows of
//     a unit-column-stride A (row i at a + i * lda); rows past `rows` zero.
TE_SGEMM_OPTIONAL_MEMBER(HasPackAStrip, pack_a_strip)
//   static void pack_b_rows(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst);
//     kc x nc of a unit-column-stride B (row k at b + k * ldb) into
//     ceil(nc / kNr) strips (PackBFunction's layout, zero past nc).
TE_SGEMM_OPTIONAL_MEMBER(HasPackBRows, pack_b_rows)
//   static void pack_b_cols(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst);
//     the same for a unit-row-stride B (column n at b + n * ldb: a row-major
//     [N, K] linear weight read as its transpose).
TE_SGEMM_OPTIONAL_MEMBER(HasPackBCols, pack_b_cols)
//   static void bias_clamp_row(float* c, int64_t cols, float alpha, float row_bias,
//                              const float* col_bias, float lo, float hi);
//     c[j] = clamp(alpha * c[j] + row_bias (+ col_bias[j] if not null), lo, hi)
//     for j < cols, NaN kept.
TE_SGEMM_OPTIONAL_MEMBER(HasBiasClampRow, bias_clamp_row)
//   static void gelu_row(float* c, int64_t cols);
//     c[j] = gelu(c[j]) for j < cols, computed as the kernel's fused epilogue
//     computes it (so tiles stored in place and edge tiles agree); without
//     it, the scalar formula below.
TE_SGEMM_OPTIONAL_MEMBER(HasGeluRow, gelu_row)
//   template <int kStrips>
//   static void gemv_strips(int64_t kc, const float* a, const float* pb,
//                           int64_t strip_stride, float* c, bool accumulate);
//     one row: c[s * kNr + j] (+)= sum over k < kc of a[k] * pb[s * strip_stride
//     + k * kNr + j] for strips s < kStrips (1..4), pb 64-byte aligned, summed
//     as micro_rows sums a one-row tile (bit-identical results).
template <typename K, typename = void>
struct HasGemvStrips {
  static constexpr bool value = false;
};
template <typename K>
struct HasGemvStrips<K, decltype(void(&K::template gemv_strips<1>))> {
  static constexpr bool value = true;
};
TE_SGEMM_OPTIONAL_MEMBER(HasWideDirectA, micro_strips_direct_a)
#undef TE_SGEMM_OPTIONAL_MEMBER

// The epilogue of one tile as a kFusedEpilogue kernel applies it, element
// (i, j) of the tile (c the accumulated sum, including the earlier K blocks):
//   v = alpha * c + row_bias[i]   (+ 0.0f without a row bias: the driver's
//                                  epilogue adds 0 too, so both agree on -0)
//   v += col_bias[j]               (when not null)
//   v += beta * addend[i * ld_addend + j]   (when not null)
//   out = min(max, max(min, v))    (NaN stays NaN)
//   out = gelu(out)                (when gelu)
// the operations, in order, of epilogue() below, so fused and unfused tiles
// agree bit for bit. Pointers are already offset to the tile's (0, 0).
struct TileEpilogue {
  float alpha, beta, min, max;
  const float* row_bias;
  const float* col_bias;
  const float* addend;
  int64_t ld_addend;
  bool gelu;
};

// The GELU over one row of a stored tile: the kernel's, or the scalar formula.
template <typename K>
inline void gelu_row(float* c, int64_t cols) {
  if constexpr (HasGeluRow<K>::value) {
    K::gelu_row(c, cols);
  } else {
    for (int64_t j = 0; j < cols; ++j) c[j] = native::gelu_exact(c[j]);
  }
}

template <typename K, typename = void>
struct StripsPerTile {
  static constexpr int value = 1;
};
template <typename K>
struct StripsPerTile<K, decltype(void(K::kStrips))> {
  static constexpr int value = K::kStrips;
};

// Columns of C one micro-tile spans.
template <typename K>
constexpr int64_t tile_cols() {
  return int64_t{K::kNr} * StripsPerTile<K>::value;
}

template <typename K, typename = void>
struct HasFusedEpilogue {
  static constexpr bool value = false;
};
template <typename K>
struct HasFusedEpilogue<K, decltype(void(K::kFusedEpilogue))> {
  static constexpr bool value = K::kFusedEpilogue;
};

// Packs rows [m0, m0 + mc) x cols [k0, k0 + kc) of A into MR-tall strips:
// strip s, element (k, i) at dst[s * kc * kMr + k * kMr + i]; rows past M zero.
template <typename K>
void pack_a(const MatrixView& a, int64_t m_total, int64_t m0, int64_t mc, int64_t k0, int64_t kc,
            float* dst) {
  for (int64_t s = 0; s < mc; s += K::kMr) {
    const int64_t rows = max64(0, min64(K::kMr, m_total - (m0 + s)));
    float* out = dst + s * kc;
    if (a.col_stride == 1) {
      const float* first = a.data + (m0 + s) * a.row_stride + k0;
      if constexpr (HasPackAStrip<K>::value) {
        K::pack_a_strip(first, a.row_stride, rows, kc, out);
        continue;
      }
      for (int64_t i = 0; i < K::kMr; ++i) {
        if (i >= rows) {
          for (int64_t k = 0; k < kc; ++k) out[k * K::kMr + i] = 0.0f;
          continue;
        }
        const float* row = first + i * a.row_stride;
        for (int64_t k = 0; k < kc; ++k) out[k * K::kMr + i] = row[k];
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        const float* col = a.data + (k0 + k) * a.col_stride + (m0 + s) * a.row_stride;
        for (int64_t i = 0; i < K::kMr; ++i) {
          out[k * K::kMr + i] = i < rows ? col[i * a.row_stride] : 0.0f;
        }
      }
    }
  }
}

// Packs rows [k0, k0 + kc) x cols [n0, n0 + nc) of a strided B into NR-wide
// strips (see PackBFunction).
template <typename K>
void pack_b(const MatrixView& b, int64_t k0, int64_t kc, int64_t n0, int64_t nc, float* dst) {
  const float* first = b.data + k0 * b.row_stride + n0 * b.col_stride;
  if constexpr (HasPackBRows<K>::value) {
    if (b.col_stride == 1) return K::pack_b_rows(first, b.row_stride, kc, nc, dst);
  }
  if constexpr (HasPackBCols<K>::value) {
    if (b.row_stride == 1) return K::pack_b_cols(first, b.col_stride, kc, nc, dst);
  }
  for (int64_t s = 0; s < nc; s += K::kNr) {
    const int64_t cols = min64(K::kNr, nc - s);
    float* out = dst + s * kc;
    if (b.col_stride == 1) {
      for (int64_t k = 0; k < kc; ++k) {
        const float* row = first + k * b.row_stride + s;
        float* o = out + k * K::kNr;
        if (cols == K::kNr) {
          std::memcpy(o, row, sizeof(float) * K::kNr);
        } else {
          for (int64_t j = 0; j < K::kNr; ++j) o[j] = j < cols ? row[j] : 0.0f;
        }
      }
    } else {
      for (int64_t j = 0; j < K::kNr; ++j) {
        if (j >= cols) {
          for (int64_t k = 0; k < kc; ++k) out[k * K::kNr + j] = 0.0f;
          continue;
        }
        const float* col = first + (s + j) * b.col_stride;
        for (int64_t k = 0; k < kc; ++k) out[k * K::kNr + j] = col[k * b.row_stride];
      }
    }
  }
}

// Prepacked B (SgemmProblem::b_prepacked) is read in place when its strips
// have the kernel's width and sit at this alignment (the micro-kernels load
// B with aligned loads; each strip block starts a multiple of kNr floats in).
constexpr uintptr_t kPrepackedAlignment = 64;

template <typename K>
bool prepacked_in_place(const SgemmProblem& p) {
  return p.b_prepacked != nullptr && p.b_prepacked_nr == K::kNr &&
         reinterpret_cast<uintptr_t>(p.b_prepacked) % kPrepackedAlignment == 0;
}

// The strip block of columns [n0, n0 + kNr) (n0 a multiple of kNr), rows
// [k0, ...) of an in-place prepacked B.
template <typename K>
const float* prepacked_block(const SgemmProblem& p, int64_t n0, int64_t k0) {
  return p.b_prepacked + (n0 / K::kNr) * p.k * K::kNr + k0 * K::kNr;
}

// pack_b's output from a prepacked B that cannot be read in place (another
// strip width (b_prepacked_nr other than 16), or a
// misaligned pointer): rows [k0, k0 + kc) x cols [n0, n0 + nc) repacked
// element by element. Correctness, not speed: the AOT writer packs for the
// kernel that runs and aligns its constants.
template <typename K>
void pack_b_from_prepacked(const SgemmProblem& p, int64_t k0, int64_t kc, int64_t n0,
                           int64_t nc, float* dst) {
  const int64_t nr = p.b_prepacked_nr;
  for (int64_t s = 0; s < nc; s += K::kNr) {
    const int64_t cols = min64(K::kNr, nc - s);
    float* out = dst + s * kc;
    for (int64_t k = 0; k < kc; ++k) {
      for (int64_t j = 0; j < K::kNr; ++j) {
        const int64_t n = n0 + s + j;
        out[k * K::kNr + j] =
            j < cols ? p.b_prepacked[(n / nr) * p.k * nr + (k0 + k) * nr + n % nr] : 0.0f;
      }
    }
  }
}

// Where one batch item's operands live.
struct Item {
  MatrixView a, b, addend;
  float* c;
};

// The epilogue on rows [m0, m0 + rows) x cols [n0, n0 + cols) of C.
template <typename K>
void epilogue(const SgemmProblem& p, const Item& it, int64_t m0, int64_t rows, int64_t n0,
              int64_t cols) {
  const bool use_addend = p.beta != 0.0f && it.addend.data != nullptr;
  const float* cb = p.col_bias == nullptr ? nullptr : p.col_bias + n0;
  for (int64_t i = 0; i < rows; ++i) {
    float* c = it.c + (m0 + i) * p.ldc + n0;
    const float rb = p.row_bias == nullptr ? 0.0f : p.row_bias[m0 + i];
    bool done = false;
    if constexpr (HasBiasClampRow<K>::value) {
      if (!use_addend) {
        K::bias_clamp_row(c, cols, p.alpha, rb, cb, p.min, p.max);
        done = true;
      }
    }
    for (int64_t j = 0; j < cols && !done; ++j) {
      float v = p.alpha * c[j] + rb;
      if (cb != nullptr) v += cb[j];
      if (use_addend) {
        v += p.beta * it.addend.data[(m0 + i) * it.addend.row_stride +
                                     (n0 + j) * it.addend.col_stride];
      }
      v = v < p.min ? p.min : v;
      c[j] = v > p.max ? p.max : v;
    }
    if (p.gelu) gelu_row<K>(c, cols);
  }
}

template <typename K>
bool needs_epilogue(const SgemmProblem& p) {
  return p.alpha != 1.0f || (p.beta != 0.0f && p.addend.data != nullptr) ||
         p.row_bias != nullptr || p.col_bias != nullptr || p.gelu ||
         p.min != -std::numeric_limits<float>::infinity() ||
         p.max != std::numeric_limits<float>::infinity();
}

// Up to this many columns of C per rectangle, a kernel with micro_direct_a
// reads a unit-stride A in place instead of packing it: a packed A element
// feeds only 2 * N flops then, and the (then scalar) packing cost as much as
// those FMAs (ResNet-50 layer 4, M=512 N=49 K=4608, AVX2, 1 thread: 46-48 ->
// 66-74 GFLOP/s with sgemm_bench). With the vectorized AVX2 packer, reading
// in place still wins there (74 vs 58 GFLOP/s packed; BERT's p.v bmm, N=32:
// 89 vs 77). Larger N amortizes the packing; N = 196 measured no better
// direct, so the packed path stays there.
constexpr int64_t kDirectAMaxN = 64;

// Per-thread scratch: one A block and one B panel.
struct Scratch {
  float* a;
  float* b;
};

// Up to this many rows of C per rectangle, a kernel with micro_direct_b (or
// a wide-tile kernel, whose micro_strips takes B in place too)
// reads a unit-column-stride B (a 1x1 convolution's input planes) in place
// instead of packing it: a packed B element would feed only 2 * M flops, and
// packing it (a strided read and a write) cost a third of the time of
// MobileNetV2's projection layers (M = 16-64). sgemm_bench, 1 thread, GFLOP/s
// packed -> in place: M=16 K=32 N=12544 61 -> 67; M=24 K=96 N=3136 70 -> 84;
// M=24 K=144 N=3136 73 -> 80; M=32 K=192 N=784 73 -> 84; M=64 K=384 N=196
// 80 -> 86. Larger M amortizes the packing (M=96 K=16 N=12544: 69 -> 62 in
// place), so those stay packed.
constexpr int64_t kDirectBMaxM = 64;

// Whether the kc rows of a B strip, `ldb` floats apart, stay in L1 when read
// in place. Rows a multiple of 64 bytes apart share few L1 sets (32 KiB,
// 8-way, 64-byte lines: 64 sets; N = 3136 floats puts every row in one of
// 16 sets, 128 lines); the strip must fit in them, with a quarter more
// that L2 absorbs (in-place reads measured slower past that: K=147 over
// N=12544's 4 sets, 80 -> 68 GFLOP/s; K=576 at N=3136, 82 -> 61).
static inline bool direct_b_fits_l1(int64_t kc, int64_t ldb) {
  constexpr int64_t kSets = 64, kWays = 8, kLineBytes = 64;
  const int64_t row_bytes = ldb * static_cast<int64_t>(sizeof(float));
  int64_t sets = kSets;
  if (row_bytes % kLineBytes == 0) {
    int64_t step = (row_bytes / kLineBytes) % kSets, g = kSets;
    while (step != 0) {  // g = gcd(step, kSets)
      const int64_t t = g % step;
      g = step;
      step = t;
    }
    sets = kSets / g;
  }
  return kc * 4 <= sets * kWays * 5;
}

// `total` cut into the fewest blocks of at most `max_block`, of equal size
// rounded up to `align` (the last one may be shorter).
static inline int64_t even_block(int64_t total, int64_t max_block, int64_t align) {
  if (total <= 0) return align;
  const int64_t blocks = (total + max_block - 1) / max_block;
  return min64(max_block, round_up((total + blocks - 1) / blocks, align));
}

// Whether a kFusedEpilogue kernel can apply p's epilogue in its tiles: an
// addend must have unit column stride (the kernel loads its rows as vectors).
template <typename K>
bool fuses_epilogue(const SgemmProblem& p) {
  const bool use_addend = p.beta != 0.0f && p.addend.data != nullptr;
  return HasFusedEpilogue<K>::value && (!use_addend || p.addend.col_stride == 1);
}

// The TileEpilogue of the tile at (m, n) of item `it`.
inline TileEpilogue tile_epilogue(const SgemmProblem& p, const Item& it, int64_t m, int64_t n) {
  const bool use_addend = p.beta != 0.0f && it.addend.data != nullptr;
  return TileEpilogue{p.alpha,
                      p.beta,
                      p.min,
                      p.max,
                      p.row_bias == nullptr ? nullptr : p.row_bias + m,
                      p.col_bias == nullptr ? nullptr : p.col_bias + n,
                      use_addend ? it.addend.data + m * it.addend.row_stride + n : nullptr,
                      it.addend.row_stride,
                      p.gelu};
}

// One micro-tile: rows [m, m + rows) x cols [n, n + cols) of C (rows <= kMr,
// cols <= kNr) from the packed strips pa / pb (or A in place: `direct`; or,
// when ldb != 0, B in place with rows ldb apart: full-width tiles only).
// `epi` (a kFusedEpilogue kernel's last K block, or null) is applied by the
// kernel when the tile is stored in place; returns whether it was (else the
// caller runs epilogue() on the stored tile).
template <typename K>
inline bool tile(const SgemmProblem& p, const Item& it, int64_t m, int64_t rows, int64_t n,
                 int64_t cols, int64_t k0, int64_t kc, const float* pa, const float* pb,
                 int64_t ldb, bool direct, bool first, float* edge, const TileEpilogue* epi) {
  float* c = it.c + m * p.ldc + n;
  // In place when the tile's columns are all there; a narrow tile goes
  // through the full-size `edge` buffer.
  const bool in_place = cols == K::kNr && (rows == K::kMr || HasMicroRows<K>::value);
  float* dst = in_place ? c : edge;
  const int64_t ld = in_place ? p.ldc : K::kNr;
  for (int64_t r = 0; r < rows && !first && !in_place; ++r) {
    std::memcpy(edge + r * K::kNr, c + r * p.ldc, sizeof(float) * cols);
  }
  bool done = false;
  if constexpr (HasFusedEpilogue<K>::value) {
    if (!in_place) epi = nullptr;
    if constexpr (HasDirectB<K>::value) {
      if (ldb != 0) {
        K::micro_direct_b(static_cast<int>(rows), kc, pa, pb, ldb, dst, ld, !first, epi);
        done = true;
      }
    }
    if constexpr (HasDirectA<K>::value) {
      if (!done && direct && rows == K::kMr) {
        K::micro_direct_a(kc, it.a.data + m * it.a.row_stride + k0, it.a.row_stride, pb, dst,
                          ld, !first, cols, epi);
        done = true;
      }
    }
    if constexpr (HasMicroRows<K>::value) {
      if (!done && rows < K::kMr) {
        K::micro_rows(static_cast<int>(rows), kc, pa, pb, dst, ld, !first, epi);
        done = true;
      }
    }
    if (!done) K::micro(kc, pa, pb, dst, ld, !first, epi);
  } else {
    epi = nullptr;
    if constexpr (HasDirectB<K>::value) {
      if (ldb != 0) {
        K::micro_direct_b(static_cast<int>(rows), kc, pa, pb, ldb, dst, ld, !first);
        done = true;
      }
    }
    if constexpr (HasDirectA<K>::value) {
      if (!done && direct && rows == K::kMr) {
        K::micro_direct_a(kc, it.a.data + m * it.a.row_stride + k0, it.a.row_stride, pb, dst,
                          ld, !first, cols);
        done = true;
      }
    }
    if constexpr (HasMicroRows<K>::value) {
      if (!done && rows < K::kMr) {
        K::micro_rows(static_cast<int>(rows), kc, pa, pb, dst, ld, !first);
        done = true;
      }
    }
    if (!done) K::micro(kc, pa, pb, dst, ld, !first);
  }
  for (int64_t r = 0; r < rows && !in_place; ++r) {
    std::memcpy(c + r * p.ldc, edge + r * K::kNr, sizeof(float) * cols);
  }
  return epi != nullptr;
}

// tile() for a wide-tile kernel (kStrips > 1): rows <= kMr x cols <=
// tile_cols<K>() of C from `strips` strips (pb, strip_stride, ldb: see
// micro_strips). A partial last strip goes through the `edge` buffer
// (kMr x tile_cols<K>()); returns whether the epilogue was applied.
template <typename K>
inline bool wide_tile(const SgemmProblem& p, const Item& it, int64_t m, int64_t rows, int64_t n,
                      int64_t cols, int64_t k0, int64_t kc, const float* pa, const float* pb,
                      int64_t strip_stride, int64_t ldb, bool direct, bool first, float* edge,
                      const TileEpilogue* epi) {
  constexpr int64_t kWidth = tile_cols<K>();
  float* c = it.c + m * p.ldc + n;
  const int strips = static_cast<int>((cols + K::kNr - 1) / K::kNr);
  const bool in_place = cols % K::kNr == 0;
  auto run = [&](float* dst, int64_t ld, const TileEpilogue* e) {
    if constexpr (HasWideDirectA<K>::value) {
      if (direct && rows == K::kMr) {
        return K::micro_strips_direct_a(strips, kc, it.a.data + m * it.a.row_stride + k0,
                                        it.a.row_stride, pb, strip_stride, dst, ld, !first, e);
      }
    }
    K::micro_strips(static_cast<int>(rows), strips, kc, pa, pb, strip_stride, ldb, dst, ld,
                    !first, e);
  };
  if (in_place) {
    run(c, p.ldc, epi);
    return epi != nullptr;
  }
  for (int64_t r = 0; r < rows && !first; ++r) {
    std::memcpy(edge + r * kWidth, c + r * p.ldc, sizeof(float) * cols);
  }
  run(edge, kWidth, nullptr);
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(c + r * p.ldc, edge + r * kWidth, sizeof(float) * cols);
  }
  return false;
}

// A single row of C against prepacked B read in place (a classifier head,
// a decoder's token): four strips at a time, each read in order through
// all its K blocks, where the loop nest visits every strip once per KC
// block (the strips' 16 KiB pieces 80 KiB apart defeat the prefetchers).
// The same KC blocks and summation order as the loop nest, so results are
// bit-identical. MobileNetV2's 1 x 1000 x 1280 head, weights from memory,
// AVX2 (AMD Zen 3), 1 thread: sgemm_bench best 403-429 -> 226-236 us; in
// the model's profile 610-660 -> 346 us (ONNX Runtime's Gemm: 427). One
// strip at a time with four k-split accumulator pairs reached only 280-295.
template <typename K>
bool gemv_applies(const SgemmProblem& p, const Item& it, int64_t m_begin, int64_t m_end) {
  if constexpr (HasGemvStrips<K>::value) {
    return m_end - m_begin == 1 && prepacked_in_place<K>(p) && it.a.col_stride == 1;
  }
  return false;
}

template <typename K>
void run_gemv(const SgemmProblem& p, const Item& it, int64_t m, int64_t n_begin, int64_t n_end) {
  if constexpr (HasGemvStrips<K>::value) {
    constexpr int64_t kMaxStrips = 4;
    const float* a = it.a.data + m * it.a.row_stride;
    float* c = it.c + m * p.ldc;
    const int64_t kc_block = even_block(p.k, K::kKc, 8);
    alignas(64) float sums[kMaxStrips * K::kNr];
    for (int64_t n0 = n_begin; n0 < n_end; n0 += kMaxStrips * K::kNr) {
      const int64_t cols = min64(kMaxStrips * K::kNr, n_end - n0);
      const int strips = static_cast<int>((cols + K::kNr - 1) / K::kNr);
      if (p.k == 0) std::memset(sums, 0, sizeof(sums));  // zeros, then the epilogue
      for (int64_t k0 = 0; k0 < p.k; k0 += kc_block) {
        const int64_t kc = min64(kc_block, p.k - k0);
        const float* pb = prepacked_block<K>(p, n0, k0);
        switch (strips) {
          case 1: K::template gemv_strips<1>(kc, a + k0, pb, p.k * K::kNr, sums, k0 > 0); break;
          case 2: K::template gemv_strips<2>(kc, a + k0, pb, p.k * K::kNr, sums, k0 > 0); break;
          case 3: K::template gemv_strips<3>(kc, a + k0, pb, p.k * K::kNr, sums, k0 > 0); break;
          default: K::template gemv_strips<4>(kc, a + k0, pb, p.k * K::kNr, sums, k0 > 0); break;
        }
      }
      std::memcpy(c + n0, sums, sizeof(float) * static_cast<size_t>(cols));
    }
    if (needs_epilogue<K>(p)) epilogue<K>(p, it, m, 1, n_begin, n_end - n_begin);
  }
}

// The serial loop nest (file comment) over rows [m_begin, m_end) and
// columns [n_begin, n_end) of one batch item.
template <typename K>
void run_rectangle(const SgemmProblem& p, const Item& it, int64_t m_begin, int64_t m_end,
                   int64_t n_begin, int64_t n_end, int64_t nc_max, const Scratch& s) {
  if (gemv_applies<K>(p, it, m_begin, m_end)) return run_gemv<K>(p, it, m_begin, n_begin, n_end);
  const bool epi = needs_epilogue<K>(p);
  const bool fused = epi && fuses_epilogue<K>(p);
  const bool direct_a = (HasDirectA<K>::value || HasWideDirectA<K>::value) &&
                        it.a.col_stride == 1 && n_end - n_begin <= kDirectAMaxN;
  static_assert(K::kNc % tile_cols<K>() == 0, "panels start on tile boundaries (prepacked B)");
  const bool b_in_place = prepacked_in_place<K>(p);
  const int64_t kc_block = even_block(p.k, K::kKc, 8);
  const bool direct_b = (HasDirectB<K>::value || StripsPerTile<K>::value > 1) && !direct_a &&
                        !b_in_place &&
                        p.b_prepacked == nullptr && p.pack_b == nullptr &&
                        it.b.col_stride == 1 && m_end - m_begin <= kDirectBMaxM &&
                        direct_b_fits_l1(kc_block, it.b.row_stride);
  const int64_t mc_block = even_block(m_end - m_begin, K::kMc, K::kMr);
  constexpr bool kWide = StripsPerTile<K>::value > 1;
  alignas(64) float edge[K::kMr * tile_cols<K>()];
  for (int64_t n0 = n_begin; n0 < n_end; n0 += nc_max) {
    const int64_t nc = min64(nc_max, n_end - n0);
    int64_t k0 = 0;
    do {  // K == 0 still runs once so C gets its zeros and epilogue
      const int64_t kc = min64(kc_block, p.k - k0);
      const bool first = k0 == 0, last = k0 + kc >= p.k;
      const int64_t full_cols = nc / K::kNr * K::kNr;
      if (b_in_place) {  // nothing to pack: tiles read the strips from b_prepacked
      } else if (direct_b) {  // only the partial last strip is packed
        if (full_cols < nc) pack_b<K>(it.b, k0, kc, n0 + full_cols, nc - full_cols, s.b);
      } else if (p.b_prepacked != nullptr) {
        pack_b_from_prepacked<K>(p, k0, kc, n0, nc, s.b);
      } else if (p.pack_b != nullptr) {
        p.pack_b(p.pack_b_context, k0, kc, n0, nc, K::kNr, s.b);
      } else {
        pack_b<K>(it.b, k0, kc, n0, nc, s.b);
      }
      for (int64_t m0 = m_begin; m0 < m_end; m0 += mc_block) {
        const int64_t mc = min64(mc_block, m_end - m0);
        const int64_t full_rows = mc / K::kMr * K::kMr;
        if (!direct_a) {
          pack_a<K>(it.a, p.m, m0, round_up(mc, K::kMr), k0, kc, s.a);
        } else if (full_rows < mc) {  // only the partial last strip is packed
          pack_a<K>(it.a, p.m, m0 + full_rows, K::kMr, k0, kc, s.a + full_rows * kc);
        }
        for (int64_t j = 0; j < nc;) {
          // A wide tile never mixes strips read in place with the packed
          // partial one (direct_b).
          const int64_t cols = min64(tile_cols<K>(), (direct_b && j < full_cols ? full_cols : nc) - j);
          const bool b_direct = direct_b && j < full_cols;
          const float* pb = b_in_place ? prepacked_block<K>(p, n0 + j, k0)
                            : b_direct ? it.b.data + k0 * it.b.row_stride + n0 + j
                            : direct_b ? s.b
                                       : s.b + j * kc;
          const int64_t ldb = b_direct ? it.b.row_stride : 0;
          const int64_t strip_stride = b_in_place ? p.k * K::kNr
                                       : b_direct ? int64_t{K::kNr}
                                                  : kc * K::kNr;
          for (int64_t i = 0; i < mc; i += K::kMr) {
            const int64_t rows = min64(K::kMr, mc - i);
            TileEpilogue te;
            if (last && fused) te = tile_epilogue(p, it, m0 + i, n0 + j);
            const TileEpilogue* tile_epi = last && fused ? &te : nullptr;
            bool applied;
            if constexpr (kWide) {
              applied = wide_tile<K>(p, it, m0 + i, rows, n0 + j, cols, k0, kc, s.a + i * kc,
                                     pb, strip_stride, b_direct ? ldb : int64_t{K::kNr},
                                     direct_a, first, edge, tile_epi);
            } else {
              applied = tile<K>(p, it, m0 + i, rows, n0 + j, cols, k0, kc, s.a + i * kc, pb, ldb,
                                direct_a, first, edge, tile_epi);
            }
            if (last && epi && !applied) epilogue<K>(p, it, m0 + i, rows, n0 + j, cols);
          }
          j += cols;
        }
      }
      k0 += kc;
    } while (k0 < p.k);
  }
}

static inline Item item_of(const SgemmProblem& p, int64_t b) {
  Item it;
  it.a = p.a;
  it.a.data = p.a.data + b * p.batch_stride_a;
  it.b = p.b;
  it.b.data = p.b.data == nullptr ? nullptr : p.b.data + b * p.batch_stride_b;
  it.addend = p.addend;
  it.addend.data = p.addend.data == nullptr ? nullptr : p.addend.data + b * p.batch_stride_addend;
  it.c = p.c + b * p.batch_stride_c;
  return it;
}

// Splits [0, total) into `parts` ranges aligned to `align`; part i is
// [*begin, *end) (possibly empty).
static inline void split_range(int64_t total, int64_t parts, int64_t i, int64_t align,
                               int64_t* begin, int64_t* end) {
  const int64_t units = (total + align - 1) / align;
  const int64_t lo = units * i / parts, hi = units * (i + 1) / parts;
  *begin = min64(total, lo * align);
  *end = min64(total, hi * align);
}

// How run() cuts a problem: parts (rectangles or batch items), the scratch
// slots they run in (at most one part per thread at a time), panel width and
// scratch sizes.
struct Plan {
  bool by_batch, split_n;
  int64_t parts, slots, nc_max;
  size_t a_floats, b_floats;
  size_t scratch_bytes() const {
    return sizeof(float) * (a_floats + b_floats) * static_cast<size_t>(slots);
  }
};

// Row blocks per thread when M is split over B prepacked in place: no part
// packs any of B, so smaller parts cost nothing and let a thread that starts
// late (a worker still waking up, or descheduled on a shared host) take
// fewer of them instead of holding up the caller with a whole half. Whisper's
// 1500 x 1024 x 256 fc1 at 2 threads in a model was 1.47x its 1-thread time
// with two halves.
constexpr int64_t kPartsPerThread = 4;

template <typename K>
Plan make_plan(const SgemmProblem& p) {
  Plan plan;
  int64_t threads = static_cast<int64_t>(num_threads());
  // Work too small to pay for waking threads stays on the caller.
  const double flops = 2.0 * p.m * p.n * max64(p.k, 1) * p.batch;
  if (flops < 2e5) threads = 1;
  // Threads take whole batch items when they divide evenly or are many
  // (ViT's 3 heads on 2 threads would leave one thread idle a third of the
  // time); otherwise every item is split among all threads.
  plan.by_batch = threads == 1 || p.batch % threads == 0 || p.batch >= 4 * threads;
  // Each thread packs the whole operand that is not split, so split the
  // larger of N and M (BERT's 128 x 384 x 384: splitting M had both threads
  // stream all of B), unless the split part would be too thin.
  plan.split_n = !plan.by_batch &&
                 ((p.n > p.m && p.n >= threads * tile_cols<K>() * 2) || p.m < threads * K::kMr * 4);
  plan.parts = plan.by_batch ? min64(threads, max64(p.batch, 1)) : threads;
  if (threads > 1 && !plan.by_batch && !plan.split_n && prepacked_in_place<K>(p)) {
    const int64_t row_blocks = (p.m + K::kMc - 1) / K::kMc;
    plan.parts = max64(threads, min64(threads * kPartsPerThread, row_blocks));
  }
  plan.slots = min64(plan.parts, threads);
  int64_t nc_max = K::kNc;
  if (plan.split_n) nc_max = min64(nc_max, round_up((p.n + threads - 1) / threads, tile_cols<K>()));
  const int64_t kc_max = max64(1, even_block(p.k, K::kKc, 8));
  // Many threads: narrower panels keep the scratch within the Module's
  // default 8 MiB temp allocator (kScratchBudget for all B panels).
  constexpr int64_t kScratchBudget = int64_t{5} << 20;
  const int64_t nc_budget =
      kScratchBudget / (plan.slots * kc_max * 4) / tile_cols<K>() * tile_cols<K>();
  nc_max = min64(nc_max, max64(tile_cols<K>() * 4, nc_budget));
  plan.nc_max = max64(K::kNr, min64(nc_max, round_up(p.n, K::kNr)));
  const int64_t mc_max = max64(K::kMr, min64(K::kMc, round_up(p.m, K::kMr)));
  plan.a_floats = static_cast<size_t>(round_up(mc_max * kc_max, 16));
  // No B panel when prepacked strips are read in place.
  plan.b_floats =
      prepacked_in_place<K>(p) ? 0 : static_cast<size_t>(round_up(plan.nc_max * kc_max, 16));
  return plan;
}

template <typename K>
size_t scratch_bytes(const SgemmProblem& p) {
  return make_plan<K>(p).scratch_bytes() + 64;  // + alignment slack
}

template <typename K>
Error run(KernelContext& ctx, const SgemmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.batch == 0) return Error::Ok;
  const Plan plan = make_plan<K>(p);
  const bool by_batch = plan.by_batch, split_n = plan.split_n;
  const int64_t parts = plan.parts, nc_max = plan.nc_max;
  const size_t a_floats = plan.a_floats, b_floats = plan.b_floats;
  float* scratch = static_cast<float*>(ctx.allocate_temp(plan.scratch_bytes(), 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "sgemm: no room for %zu bytes of packing scratch", plan.scratch_bytes());
  auto slot = [&](int64_t index) {
    float* base = scratch + static_cast<size_t>(index) * (a_floats + b_floats);
    return Scratch{base, base + a_floats};
  };
  parallel_for_slots(0, parts, 1, plan.slots, [&](int64_t begin, int64_t end, int64_t index) {
    const Scratch s = slot(index);
    for (int64_t part = begin; part < end; ++part) {
      if (by_batch) {
        for (int64_t b = part; b < p.batch; b += parts) {
          run_rectangle<K>(p, item_of(p, b), 0, p.m, 0, p.n, nc_max, s);
        }
        continue;
      }
      int64_t lo = 0, hi = 0;
      split_range(split_n ? p.n : p.m, parts, part, split_n ? tile_cols<K>() : K::kMr, &lo, &hi);
      if (lo >= hi) continue;
      for (int64_t b = 0; b < p.batch; ++b) {
        if (split_n) {
          run_rectangle<K>(p, item_of(p, b), 0, p.m, lo, hi, nc_max, s);
        } else {
          run_rectangle<K>(p, item_of(p, b), lo, hi, 0, p.n, nc_max, s);
        }
      }
    }
  });
  return Error::Ok;
}

}  // namespace sgemm_driver
}  // namespace optimized
}  // namespace torchedge
