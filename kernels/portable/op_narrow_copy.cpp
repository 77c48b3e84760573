// aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
//
// out is self[start:start + length] along `dim`. start ranges over
// [-size, size] (negative counts from the end); length >= 0 and
// start + length <= size, else an error (no clamping, unlike slice).
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error narrow_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t start, int_arg(args, 2, "start"));
  TE_ASSIGN_OR_RETURN(int64_t length, int_arg(args, 3, "length"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "narrow() cannot be applied to a 0-d tensor");
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "narrow dim"));
  const int64_t size = self->size(d);
  TE_CHECK_OR_RETURN(start >= -size && start <= size, Error::InvalidArgument,
                     "narrow: start %lld out of range [%lld, %lld]", static_cast<long long>(start),
                     static_cast<long long>(-size), static_cast<long long>(size));
  if (start < 0) start += size;
  TE_CHECK_OR_RETURN(length >= 0 && length <= size - start, Error::InvalidArgument,
                     "narrow: start (%lld) + length (%lld) exceeds dim %d of size %lld",
                     static_cast<long long>(start), static_cast<long long>(length), d,
                     static_cast<long long>(size));
  StridedView view = view_of(*self);
  view_narrow(view, d, start, length, 1);
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
