#include "kernels/portable/support/reduction.h"

#include "kernels/portable/support/kernel_args.h"

namespace torchedge {

void ReductionPlan::append(Dims& dims, int64_t size, int64_t in_stride, int64_t out_stride) {
  // Merge into the previous (outer) dim when the two are dense together.
  const int last = dims.count - 1;
  if (last >= 0 && dims.in_stride[last] == in_stride * size &&
      dims.out_stride[last] == out_stride * size) {
    dims.size[last] *= size;
    dims.in_stride[last] = in_stride;
    dims.out_stride[last] = out_stride;
    return;
  }
  dims.size[dims.count] = size;
  dims.in_stride[dims.count] = in_stride;
  dims.out_stride[dims.count] = out_stride;
  ++dims.count;
}

Error ReductionPlan::init(const Tensor& in, Span<const int64_t> dims, const char* op,
                          const Tensor* paired) {
  in_ = &in;
  reduced_mask_ = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    TE_ASSIGN_OR_RETURN(int d, normalize_dim(dims[i], in.dim(), "dim"));
    if (in.dim() == 0) continue;  // dim 0 / -1 of a scalar: nothing to mark
    TE_CHECK_OR_RETURN(!(reduced_mask_ & (1u << d)), Error::InvalidArgument,
                       "%s: dim %d appears multiple times in the list of dims", op, d);
    reduced_mask_ |= 1u << d;
  }
  if (dims.size() == 0) reduced_mask_ = (1u << in.dim()) - 1u;
  reduced_ = Dims();
  reduced_numel_ = 1;
  output_numel_ = 1;
  for (int d = 0; d < in.dim(); ++d) {
    if (is_reduced(d)) {
      reduced_numel_ *= in.size(d);
      const int64_t paired_stride = paired == nullptr ? 0 : paired->stride(d);
      if (in.size(d) != 1) append(reduced_, in.size(d), in.stride(d), paired_stride);
    } else {
      output_numel_ *= in.size(d);
    }
  }
  kept_ = Dims();
  return Error::Ok;
}

size_t ReductionPlan::output_sizes(bool keepdim, int64_t* sizes) const {
  size_t rank = 0;
  for (int d = 0; d < in_->dim(); ++d) {
    if (!is_reduced(d)) {
      sizes[rank++] = in_->size(d);
    } else if (keepdim) {
      sizes[rank++] = 1;
    }
  }
  return rank;
}

void ReductionPlan::bind_output(const Tensor& out, bool keepdim) {
  kept_ = Dims();
  int out_dim = 0;
  for (int d = 0; d < in_->dim(); ++d) {
    if (is_reduced(d)) {
      out_dim += keepdim ? 1 : 0;
      continue;
    }
    if (in_->size(d) != 1) append(kept_, in_->size(d), in_->stride(d), out.stride(out_dim));
    ++out_dim;
  }
}

int ReductionPlan::empty_reduced_dim() const {
  for (int d = 0; d < in_->dim(); ++d) {
    if (is_reduced(d) && in_->size(d) == 0) return d;
  }
  return -1;
}

}  // namespace torchedge
