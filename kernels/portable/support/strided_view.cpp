#include "kernels/portable/support/strided_view.h"

namespace torchedge {

namespace {
// Moves the view's origin by `elements`. A view of an empty tensor may have
// no memory at all; then there is nothing to point at.
void advance(StridedView& v, int64_t elements) {
  if (v.data != nullptr) v.data += elements * static_cast<int64_t>(v.element_size);
}
}  // namespace

int64_t StridedView::numel() const {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= sizes[d];
  return n;
}

StridedView view_of(const Tensor& t) {
  StridedView v;
  v.data = static_cast<char*>(t.mutable_data());
  v.element_size = element_size(t.dtype());
  v.rank = t.dim();
  for (int d = 0; d < v.rank; ++d) {
    v.sizes[d] = t.size(d);
    v.strides[d] = t.stride(d);
  }
  return v;
}

void view_narrow(StridedView& v, int dim, int64_t start, int64_t length, int64_t step) {
  // An empty slice may start one past the end; never form that pointer.
  if (length > 0) advance(v, start * v.strides[dim]);
  v.sizes[dim] = length;
  v.strides[dim] *= step;
}

void view_select(StridedView& v, int dim, int64_t index) {
  advance(v, index * v.strides[dim]);
  for (int d = dim; d + 1 < v.rank; ++d) {
    v.sizes[d] = v.sizes[d + 1];
    v.strides[d] = v.strides[d + 1];
  }
  --v.rank;
}

void view_unsqueeze(StridedView& v, int dim) {
  for (int d = v.rank; d > dim; --d) {
    v.sizes[d] = v.sizes[d - 1];
    v.strides[d] = v.strides[d - 1];
  }
  v.sizes[dim] = 1;
  v.strides[dim] = 0;  // any value works for a size-1 dim
  ++v.rank;
}

void view_permute(StridedView& v, const int* perm) {
  int64_t sizes[kMaxViewRank];
  int64_t strides[kMaxViewRank];
  for (int d = 0; d < v.rank; ++d) {
    sizes[d] = v.sizes[perm[d]];
    strides[d] = v.strides[perm[d]];
  }
  for (int d = 0; d < v.rank; ++d) {
    v.sizes[d] = sizes[d];
    v.strides[d] = strides[d];
  }
}

void view_flip(StridedView& v, int dim) {
  if (v.sizes[dim] > 1) advance(v, (v.sizes[dim] - 1) * v.strides[dim]);
  v.strides[dim] = -v.strides[dim];
}

}  // namespace torchedge
