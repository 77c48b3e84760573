// torchedge/kernels/portable/support/scatter.h
//
// What scatter (src and value) and scatter_add share: ATen's argument
// checks and the walk over the index tensor. For every position p of
// `index`, the element of `out` at p with p[dim] replaced by index[p]
// receives src[p] (or a value):
//
//   TE_RETURN_IF_ERROR(check_scatter(*self, dim, *index, src, op));  // src may be null
//   ... copy self into out ...
//   for_each_scatter(*out, dim, *index, src, [&](int64_t to, int64_t from) { ... });
//
// Rank 0 counts as rank 1 (size 1) for self, index and src, as ATen's
// ensure_nonempty_dim does. Offsets come from strides: any dim order.
#pragma once

#include <cstdint>

#include "kernels/portable/support/index_values.h"
#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Checks as ATen's scatter does: index is int64 or int32 with self's rank
/// (and src's, if given); index.size(d) <= src.size(d) for every d and <=
/// self.size(d) for d != dim; every index value in [0, self.size(dim)) (no
/// negative indices). `dim` must be normalized. Nothing is checked beyond
/// the dtype when index is empty, as in ATen.
Error check_scatter(const Tensor& self, int dim, const Tensor& index, const Tensor* src,
                    const char* op);

/// Calls f(out_offset, src_offset) for every position of `index` in
/// row-major order (src_offset is 0 when src is null). Call after
/// check_scatter; `out` has self's shape.
template <typename F>
void for_each_scatter(const Tensor& out, int dim, const Tensor& index, const Tensor* src, F&& f) {
  const int64_t count = static_cast<int64_t>(index.numel());
  if (count == 0) return;
  const int rank = index.dim();
  int64_t pos[kTensorDimensionLimit] = {};
  int64_t at_index = 0, at_src = 0, at_out = 0;  // at_out leaves out dim `dim`
  const int64_t dim_stride = out.dim() == 0 ? 0 : out.stride(dim);
  for (int64_t n = 0; n < count; ++n) {
    f(at_out + load_index(index, at_index) * dim_stride, at_src);
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t src_stride = src == nullptr || src->dim() == 0 ? 0 : src->stride(d);
      const int64_t out_stride = d == dim ? 0 : out.stride(d);
      at_index += index.stride(d);
      at_src += src_stride;
      at_out += out_stride;
      if (++pos[d] < index.size(d)) break;
      at_index -= index.size(d) * index.stride(d);
      at_src -= index.size(d) * src_stride;
      at_out -= index.size(d) * out_stride;
      pos[d] = 0;
    }
  }
}

}  // namespace torchedge
