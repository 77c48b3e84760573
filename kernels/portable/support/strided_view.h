// torchedge/kernels/portable/support/strided_view.h
//
// StridedView: a logical view of tensor memory described by (data, sizes,
// element strides), the way ATen describes a view. Shape kernels never move
// data to build a view: permute, transpose, expand, slice, select, flip and
// repeat are all a few edits of a view of their input, after which one copy
// (strided_copy.h) writes the view into the out tensor by logical index.
//
//   StridedView v = view_of(self);      // sizes [2, 3], strides [3, 1]
//   view_narrow(v, 1, 1, 2, 1);         // sizes [2, 2], data += 1 element
//   view_permute(v, perm);              // sizes [2, 2], strides [1, 3]
//
// Strides are in elements and may be 0 (a broadcast dim) or negative (a
// flipped dim); `data` is the address of element (0, ..., 0), which for a
// flipped view is not the start of the buffer. A view is a description only:
// it owns nothing and the memory it points at must outlive it. Views are
// data-movement only, so they carry an element width, never a dtype.
//
// The edit functions assume their arguments were validated by the kernel
// (dims in range, indices in bounds); they do not check.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/tensor.h"

namespace torchedge {

/// Up to two view dims per tensor dim: repeat splits each dim in two.
constexpr int kMaxViewRank = 2 * kTensorDimensionLimit;

struct StridedView {
  char* data = nullptr;      // element (0, ..., 0); may be null when numel() == 0
  size_t element_size = 1;   // bytes per element
  int rank = 0;
  int64_t sizes[kMaxViewRank] = {};
  int64_t strides[kMaxViewRank] = {};  // elements, may be 0 or negative

  int64_t numel() const;
};

/// The whole of `t`, logical dims in order, with `t`'s own strides (so any
/// dim order reads correctly).
StridedView view_of(const Tensor& t);

/// Keeps `length` elements of dim `dim`, starting at `start`, taking every
/// `step`-th (step > 0).
void view_narrow(StridedView& v, int dim, int64_t start, int64_t length, int64_t step);

/// Removes dim `dim`, fixing it at `index`.
void view_select(StridedView& v, int dim, int64_t index);

/// Inserts a dim of size 1 at position `dim` (0..rank).
void view_unsqueeze(StridedView& v, int dim);

/// Reorders dims: new dim i is old dim perm[i] (perm holds rank entries).
void view_permute(StridedView& v, const int* perm);

/// Reverses dim `dim` (negative stride, data moved to its last element).
void view_flip(StridedView& v, int dim);

}  // namespace torchedge
