// torchedge/kernels/portable/support/gemm.h
//
// The register-blocked GEMM core shared by mm, addmm, bmm, linear and
// convolution:
//
//   C[M x N] = alpha * A[M x K] * B[K x N]  (+ beta * addend, see TileSink)
//
// How the work is cut (no heap, ~16 KB of stack):
//
//   for each strip of kNr columns of B/C:
//     for each block of <= block_k<Acc>() rows of K:
//       pack_b: caller copies B[k0:k0+kc, n0:n0+kNr] into `packed`
//               (k-major, kNr wide, converted to Acc, zero past column N)
//       for each tile of kMr rows of A:
//         micro_kernel: acc[kMr][kNr] = A[rows, k0:k0+kc] * packed
//         sink.store:   caller's epilogue (strided, narrowing, bias, beta)
//
// The packed strip stays in L1 while all rows of A stream past it, and the
// caller's packer is free to gather B from anywhere: convolution packs
// im2col columns straight from its input, so no column matrix is built.
// A is read in place: row m starts at a + m * a_row_stride, and element k
// of every row sits at offset koff[k] from the row start (the caller fills
// koff per K block), so any dense weight layout works.
//
// Acc is float for float/Half/BFloat16, double for double and int64_t for
// integers (integer results wrap exactly like ATen's, since sums are exact
// modulo 2^bits).
#pragma once

#include <cstdint>

#include "runtime/core/half.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace gemm {

constexpr int kMr = 4;   // rows of A per micro-tile
constexpr int kNr = 16;  // columns of B per strip (vectorized by the compiler)
constexpr int64_t kPackedBytes = 16 * 1024;

/// Rows of K per packed block, so a packed strip is kPackedBytes.
template <typename Acc>
constexpr int64_t block_k() {
  return kPackedBytes / static_cast<int64_t>(kNr * sizeof(Acc));
}

/// The accumulation type of element type T (see the file comment).
template <typename T>
struct AccType {
  using type = int64_t;
};
template <>
struct AccType<float> {
  using type = float;
};
template <>
struct AccType<double> {
  using type = double;
};
template <>
struct AccType<Half> {
  using type = float;
};
template <>
struct AccType<BFloat16> {
  using type = float;
};
template <typename T>
using acc_t = typename AccType<T>::type;

/// acc[i][j] = sum_k a_rows[i][koff[k]] * packed[k * kNr + j].
template <typename TA, typename Acc>
inline void micro_kernel(const TA* const* a_rows, const int64_t* koff, const Acc* packed,
                         int64_t kc, Acc (&acc)[kMr][kNr]) {
  Acc sum[kMr][kNr] = {};
  for (int64_t k = 0; k < kc; ++k) {
    const Acc* b = packed + k * kNr;
    const int64_t off = koff[k];
    for (int i = 0; i < kMr; ++i) {
      const Acc a = static_cast<Acc>(a_rows[i][off]);
      for (int j = 0; j < kNr; ++j) sum[i][j] += a * b[j];
    }
  }
  for (int i = 0; i < kMr; ++i) {
    for (int j = 0; j < kNr; ++j) acc[i][j] = sum[i][j];
  }
}

/// Where one GEMM's K blocks stand, for a sink's store().
struct TilePos {
  int64_t m0, mr;          // rows m0 .. m0+mr-1
  int64_t n0, nr;          // columns n0 .. n0+nr-1
  bool first_k, last_k;    // the first / last K block of this strip
};

/// Runs the loop nest in the file comment.
///   fill_koff(int64_t* koff, int64_t k0, int64_t kc)
///   pack_b(Acc* packed, int64_t k0, int64_t kc, int64_t n0, int64_t nr)
///   store(const Acc (&acc)[kMr][kNr], const TilePos& pos)
/// K == 0 still stores every tile once (with zero sums) so epilogues run.
template <typename Acc, typename TA, typename FillKoff, typename PackB, typename Store>
void gemm_by_strips(int64_t m, int64_t n, int64_t k, const TA* a, int64_t a_row_stride,
                    FillKoff&& fill_koff, PackB&& pack_b, Store&& store) {
  constexpr int64_t kBlock = block_k<Acc>();
  alignas(64) Acc packed[kBlock * kNr];
  int64_t koff[kBlock];
  Acc acc[kMr][kNr];
  for (int64_t n0 = 0; n0 < n; n0 += kNr) {
    const int64_t nr = n - n0 < kNr ? n - n0 : kNr;
    int64_t k0 = 0;
    do {
      const int64_t kc = k - k0 < kBlock ? k - k0 : kBlock;
      fill_koff(koff, k0, kc);
      pack_b(packed, k0, kc, n0, nr);
      for (int64_t m0 = 0; m0 < m; m0 += kMr) {
        const int64_t mr = m - m0 < kMr ? m - m0 : kMr;
        const TA* rows[kMr];
        for (int i = 0; i < kMr; ++i) {
          // Rows past M repeat the last row; their sums are never stored.
          rows[i] = a + (m0 + (i < mr ? i : mr - 1)) * a_row_stride;
        }
        micro_kernel(rows, koff, packed, kc, acc);
        store(acc, TilePos{m0, mr, n0, nr, k0 == 0, k0 + kc >= k});
      }
      k0 += kc;
    } while (k0 < k);
  }
}

/// The common epilogue: writes tiles into a strided T matrix C,
///   C[m, n] = alpha * sum + beta * addend[m, n]   (first K block)
///   C[m, n] += alpha * sum                        (later K blocks)
/// Element (m, n) of C is at out + m * out_row_stride + out_col_off[n - n0]
/// (the caller refreshes out_col_off for each strip; convolution's pixels
/// need not be evenly spaced). With beta == 0 the addend is not read (as in
/// ATen, so NaN there does not propagate). When T is narrower than Acc
/// (16-bit floats), `strip` (M x kNr Acc, caller-owned, may be null) holds
/// the partial sums between K blocks so the result is rounded once; without
/// it each block's partial result is rounded to T.
template <typename T, typename Acc>
struct TileSink {
  T* out = nullptr;
  int64_t out_row_stride = 0;
  const int64_t* out_col_off = nullptr;  // kNr entries for the current strip
  const T* addend = nullptr;             // null: no addend
  int64_t add_row_stride = 0;
  int64_t add_col_stride = 0;
  Acc alpha = Acc(1);
  Acc beta = Acc(1);
  Acc* strip = nullptr;

  void operator()(const Acc (&acc)[kMr][kNr], const TilePos& p) const {
    for (int64_t i = 0; i < p.mr; ++i) {
      const int64_t m = p.m0 + i;
      T* row = out + m * out_row_stride;
      Acc* partial = strip == nullptr ? nullptr : strip + m * kNr;
      for (int64_t j = 0; j < p.nr; ++j) {
        Acc v = alpha * acc[i][j];
        if (p.first_k) {
          if (addend != nullptr && beta != Acc(0)) {
            v += beta * static_cast<Acc>(addend[m * add_row_stride + (p.n0 + j) * add_col_stride]);
          }
        } else {
          v += partial != nullptr ? partial[j] : static_cast<Acc>(row[out_col_off[j]]);
        }
        if (partial != nullptr && !p.last_k) {
          partial[j] = v;
        } else {
          row[out_col_off[j]] = static_cast<T>(v);
        }
      }
    }
  }
};

/// Partial-sum scratch for TileSink::strip: m * kNr Acc from the temp
/// allocator when T is a 16-bit float and K spans several blocks; null when
/// not needed or when the allocator has no room (then partial sums are
/// rounded per block).
template <typename T>
acc_t<T>* partial_strip(KernelContext& ctx, int64_t m, int64_t k) {
  using Acc = acc_t<T>;
  constexpr bool kNarrowFloat = sizeof(T) == 2 && sizeof(Acc) == 4;
  if (!kNarrowFloat || k <= block_k<Acc>() || m <= 0) return nullptr;
  return static_cast<Acc*>(ctx.allocate_temp(static_cast<size_t>(m) * kNr * sizeof(Acc), 64));
}

}  // namespace gemm
}  // namespace torchedge
