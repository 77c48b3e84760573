// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
//
// out is self[..., index, ...] along `dim` (the dim removed). index may be
// negative, counting from the end; a 0-d self is an error.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error select_copy_int_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t index, int_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "select() cannot be applied to a 0-d tensor");
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "select dim"));
  const int64_t size = self->size(d);
  TE_CHECK_OR_RETURN(index >= -size && index < size, Error::InvalidArgument,
                     "select(): index %lld out of range for dim %d of size %lld",
                     static_cast<long long>(index), d, static_cast<long long>(size));
  StridedView view = view_of(*self);
  view_select(view, d, index < 0 ? index + size : index);
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
