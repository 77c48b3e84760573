// torchedge/kernels/optimized/copy/outer_loop.h
//
// OuterLoop<K>: the dims outside an innermost run, walked row by row for K
// operands at once. Row r is the r-th index of the outer dims in row-major
// order; for_rows(begin, end, f) calls f(row, off) with off[k] (a RowOffsets
// passed by value, so it can live in registers) the element offset of
// operand k at the start of that row. The start row is
// unravelled once (divisions), then the walk is an odometer, so a chunk of
// a parallel_for costs one unravel.
//
//   OuterLoop<2> loop;  loop.rank = 2;  loop.sizes = {3, 5};
//   loop.strides[0] = {...src...};  loop.strides[1] = {...dst...};
//   loop.for_rows(0, loop.rows(), [&](int64_t row, RowOffsets<2> off) { ... });
//
// Header-only and baseline-compiled (no ISA-specific code), so its inline
// functions are safe to share between translation units.
#pragma once

#include <cstdint>

#include "kernels/portable/support/strided_view.h"

namespace torchedge {
namespace optimized {

template <int K>
struct RowOffsets {
  int64_t v[K];
  int64_t operator[](int k) const { return v[k]; }
};

template <int K>
struct OuterLoop {
  int rank = 0;  // 0: a single row
  int64_t sizes[kMaxViewRank] = {};
  int64_t strides[K][kMaxViewRank] = {};

  int64_t rows() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= sizes[d];
    return n;
  }

  template <typename F>
  void for_rows(int64_t begin, int64_t end, F&& f) const {
    if (end <= begin) return;
    int64_t index[kMaxViewRank] = {};
    RowOffsets<K> offset = {};
    int64_t r = begin;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = r % sizes[d];
      r /= sizes[d];
      for (int k = 0; k < K; ++k) offset.v[k] += index[d] * strides[k][d];
    }
    for (int64_t row = begin;;) {
      f(row, offset);
      if (++row == end) return;
      for (int d = rank - 1; d >= 0; --d) {  // odometer step with carry
        for (int k = 0; k < K; ++k) offset.v[k] += strides[k][d];
        if (++index[d] < sizes[d]) break;
        for (int k = 0; k < K; ++k) offset.v[k] -= strides[k][d] * sizes[d];
        index[d] = 0;
      }
    }
  }
};

}  // namespace optimized
}  // namespace torchedge
