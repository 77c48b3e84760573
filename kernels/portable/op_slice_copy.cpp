// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None,
//     SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
//
// out is self[start:end:step] along `dim`, with Python slicing rules: None
// means the dim's start or end, negative values count from the end, and
// out-of-range values are clamped. step must be positive; a 0-d self is an
// error.
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

Error slice_copy_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t start, optional_int_arg(args, 2, "start", 0));
  TE_ASSIGN_OR_RETURN(int64_t end, optional_int_arg(args, 3, "end", INT64_MAX));
  TE_ASSIGN_OR_RETURN(int64_t step, int_arg(args, 4, "step"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "slice() cannot be applied to a 0-d tensor");
  TE_CHECK_OR_RETURN(step > 0, Error::InvalidArgument, "slice step must be positive, got %lld",
                     static_cast<long long>(step));
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "slice dim"));
  const int64_t size = self->size(d);
  const int64_t first = clamp_bound(start, size);
  const int64_t last = clamp_bound(end, size);
  const int64_t length = last > first ? (last - first - 1) / step + 1 : 0;
  StridedView view = view_of(*self);
  view_narrow(view, d, first, length, step);
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
