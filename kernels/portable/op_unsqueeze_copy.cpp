// aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)
//
// out is self with a size-1 dim inserted at `dim`, which ranges over
// [-(self.dim() + 1), self.dim()].
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error unsqueeze_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() < kTensorDimensionLimit, Error::InvalidArgument,
                     "unsqueeze: self already has the maximum of %d dims", kTensorDimensionLimit);
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim() + 1, "unsqueeze dim"));
  StridedView view = view_of(*self);
  view_unsqueeze(view, d);
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
