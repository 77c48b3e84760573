// aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None,
//     SymInt? end=None, SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)
//
// out is a copy of self whose slice self[start:end:step] along dim is
// replaced by src. Python slicing rules (None = the dim's bounds, negative
// counts from the end, out-of-range clamps); step must be positive. src
// must have exactly the slice's shape (no broadcasting, as ATen); its dtype
// may differ and is converted to self's. A 0-d self is an error. Every
// dtype; out has self's dtype.
#include <cstdint>

#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// Python's rule for one slice bound of a dim of `size` elements.
int64_t clamp_bound(int64_t value, int64_t size) {
  if (value < 0) value += size;
  if (value < 0) return 0;
  return value > size ? size : value;
}

}  // namespace

Error slice_scatter_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "slice_scatter.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 1, "src"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 2, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t start, optional_int_arg(args, 3, "start", 0));
  TE_ASSIGN_OR_RETURN(int64_t end, optional_int_arg(args, 4, "end", INT64_MAX));
  TE_ASSIGN_OR_RETURN(int64_t step, int_arg(args, 5, "step"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "%s: slice() cannot be applied to a 0-d tensor", kOp);
  TE_CHECK_OR_RETURN(step > 0, Error::InvalidArgument, "%s: step must be positive, got %lld",
                     kOp, static_cast<long long>(step));
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "slice_scatter dim"));
  const int64_t size = self->size(d);
  const int64_t first = clamp_bound(start, size);
  const int64_t last = clamp_bound(end, size);
  const int64_t length = last > first ? (last - first - 1) / step + 1 : 0;
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  StridedView slot = view_of(*out);
  view_narrow(slot, d, first, length, step);
  bool same_shape = src->dim() == slot.rank;
  for (int k = 0; same_shape && k < slot.rank; ++k) same_shape = src->size(k) == slot.sizes[k];
  TE_CHECK_OR_RETURN(same_shape, Error::InvalidArgument,
                     "%s: src must have the shape of the slice (dim %d: %lld elements)", kOp, d,
                     static_cast<long long>(length));
  TE_RETURN_IF_ERROR(copy_view(view_of(*self), view_of(*out)));
  return convert_view(view_of(*src), src->dtype(), slot, out->dtype(), kOp);
}

}  // namespace native
}  // namespace torchedge
