// torchedge/kernels/portable/support/matmul.h
//
// Strided-matrix GEMM on top of gemm.h, for mm, addmm, bmm and linear:
//
//   out[M x N] = alpha * a[M x K] * b[K x N] + beta * addend[M x N]
//
// Every operand is a strided view (a transposed weight is just b with
// row_stride 1), so no operand is ever copied whole. A broadcast addend
// (addmm's bias row or column) uses stride 0. Complex operands take the
// plain loop of complex_matmul (no packing or SIMD tiles).
#pragma once

#include <complex>
#include <cstdint>

#include "kernels/portable/support/gemm.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Element (r, c) at data[r * row_stride + c * col_stride]. Non-owning.
template <typename T>
struct MatrixRef {
  T* data;
  int64_t row_stride;
  int64_t col_stride;
};

/// The view of dims (row_dim, col_dim) of `t` starting `offset` elements in.
template <typename T>
MatrixRef<T> matrix_ref(const Tensor& t, int row_dim, int col_dim, int64_t offset = 0) {
  return {static_cast<T*>(t.mutable_data()) + offset, t.stride(row_dim), t.stride(col_dim)};
}

template <typename T>
struct MatmulScalars {
  gemm::acc_t<T> alpha = 1;
  gemm::acc_t<T> beta = 1;
};

/// A Scalar EValue as accumulation type Acc (integers stay exact).
template <typename Acc>
Acc scalar_as_acc(const EValue& v) {
  if (Acc(0.5) == Acc(0)) return static_cast<Acc>(v.scalar_as_int());
  return static_cast<Acc>(v.scalar_as_double());
}

/// Packs b[k0:k0+kc, n0:n0+nr] k-major into `packed` (kNr wide, zero-padded).
template <typename T, typename Acc>
void pack_matrix_strip(MatrixRef<const T> b, int64_t k0, int64_t kc, int64_t n0, int64_t nr,
                       Acc* packed) {
  for (int64_t k = 0; k < kc; ++k) {
    const T* src = b.data + (k0 + k) * b.row_stride + n0 * b.col_stride;
    Acc* dst = packed + k * gemm::kNr;
    if (b.col_stride == 1) {
      for (int64_t j = 0; j < nr; ++j) dst[j] = static_cast<Acc>(src[j]);
    } else {
      for (int64_t j = 0; j < nr; ++j) dst[j] = static_cast<Acc>(src[j * b.col_stride]);
    }
    for (int64_t j = nr; j < gemm::kNr; ++j) dst[j] = Acc(0);
  }
}

namespace matmul_detail {

/// Row i of a * b for a few rows (matrix-vector shapes), walking b in its
/// memory order instead of packing strips: contiguous rows of b are
/// accumulated with axpy, contiguous columns with 8-way dot products.
/// Every sum goes through `sink` as one-row tiles, so epilogues match.
template <typename T, typename Sink>
void matvec_row(int64_t i, int64_t n, int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                const Sink& sink, int64_t* col_off, int64_t out_col_stride) {
  using Acc = gemm::acc_t<T>;
  constexpr int64_t kChunk = 256;  // columns per pass over b's rows
  Acc row[kChunk];
  Acc tile[gemm::kMr][gemm::kNr] = {};
  const T* a_row = a.data + i * a.row_stride;
  for (int64_t n0 = 0; n0 < n; n0 += kChunk) {
    const int64_t nc = n - n0 < kChunk ? n - n0 : kChunk;
    if (b.col_stride == 1) {
      for (int64_t j = 0; j < nc; ++j) row[j] = Acc(0);
      for (int64_t kk = 0; kk < k; ++kk) {
        const Acc av = static_cast<Acc>(a_row[kk * a.col_stride]);
        const T* b_row = b.data + kk * b.row_stride + n0;
        for (int64_t j = 0; j < nc; ++j) row[j] += av * static_cast<Acc>(b_row[j]);
      }
    } else {
      for (int64_t j = 0; j < nc; ++j) {
        const T* b_col = b.data + (n0 + j) * b.col_stride;
        Acc part[8] = {};
        int64_t kk = 0;
        if (a.col_stride == 1 && b.row_stride == 1) {
          for (; kk + 8 <= k; kk += 8) {
            for (int u = 0; u < 8; ++u) {
              part[u] += static_cast<Acc>(a_row[kk + u]) * static_cast<Acc>(b_col[kk + u]);
            }
          }
        }
        for (; kk < k; ++kk) {
          part[0] += static_cast<Acc>(a_row[kk * a.col_stride]) *
                     static_cast<Acc>(b_col[kk * b.row_stride]);
        }
        row[j] = ((part[0] + part[1]) + (part[2] + part[3])) +
                 ((part[4] + part[5]) + (part[6] + part[7]));
      }
    }
    for (int64_t j0 = 0; j0 < nc; j0 += gemm::kNr) {
      const int64_t nr = nc - j0 < gemm::kNr ? nc - j0 : gemm::kNr;
      for (int64_t j = 0; j < nr; ++j) {
        tile[0][j] = row[j0 + j];
        col_off[j] = (n0 + j0 + j) * out_col_stride;
      }
      sink(tile, gemm::TilePos{i, 1, n0 + j0, nr, true, true});
    }
  }
}

}  // namespace matmul_detail

/// out = alpha * a * b + beta * addend (addend.data may be null: no addend).
/// `strip` is gemm::partial_strip's result (may be null).
template <typename T>
void matmul(int64_t m, int64_t n, int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
            MatrixRef<T> out, MatrixRef<const T> addend, MatmulScalars<T> scalars,
            gemm::acc_t<T>* strip) {
  using Acc = gemm::acc_t<T>;
  int64_t col_off[gemm::kNr];
  gemm::TileSink<T, Acc> sink;
  sink.out = out.data;
  sink.out_row_stride = out.row_stride;
  sink.out_col_off = col_off;
  sink.addend = addend.data;
  sink.add_row_stride = addend.row_stride;
  sink.add_col_stride = addend.col_stride;
  sink.alpha = scalars.alpha;
  sink.beta = scalars.beta;
  sink.strip = strip;
  if (m < gemm::kMr && k > 0) {  // too few rows to amortize packing b
    for (int64_t i = 0; i < m; ++i) {
      matmul_detail::matvec_row(i, n, k, a, b, sink, col_off, out.col_stride);
    }
    return;
  }
  const auto fill_koff = [&](int64_t* koff, int64_t k0, int64_t kc) {
    for (int64_t i = 0; i < kc; ++i) koff[i] = (k0 + i) * a.col_stride;
  };
  const auto pack = [&](Acc* packed, int64_t k0, int64_t kc, int64_t n0, int64_t nr) {
    for (int64_t j = 0; j < gemm::kNr; ++j) col_off[j] = (n0 + j) * out.col_stride;
    pack_matrix_strip(b, k0, kc, n0, nr, packed);
  };
  gemm::gemm_by_strips<Acc>(m, n, k, a.data, a.row_stride, fill_koff, pack, sink);
}

/// out = alpha * a * b + beta * addend for complex T (std::complex<float>
/// or <double>): a plain triple loop, each dot product accumulated in
/// std::complex<double>. No addend when addend.data is null; beta == 0
/// does not read it (NaN in it does not propagate, as in ATen).
template <typename T>
void complex_matmul(int64_t m, int64_t n, int64_t k, MatrixRef<const T> a, MatrixRef<const T> b,
                    MatrixRef<T> out, MatrixRef<const T> addend, std::complex<double> alpha,
                    std::complex<double> beta) {
  using Acc = std::complex<double>;
  const bool add = addend.data != nullptr && beta != Acc(0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Acc dot(0);
      for (int64_t kk = 0; kk < k; ++kk) {
        dot += Acc(a.data[i * a.row_stride + kk * a.col_stride]) *
               Acc(b.data[kk * b.row_stride + j * b.col_stride]);
      }
      Acc value = alpha * dot;
      if (add) value += beta * Acc(addend.data[i * addend.row_stride + j * addend.col_stride]);
      out.data[i * out.row_stride + j * out.col_stride] = static_cast<T>(value);
    }
  }
}

}  // namespace torchedge
