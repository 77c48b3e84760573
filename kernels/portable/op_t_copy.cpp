// aten::t_copy.out(Tensor self, *, Tensor(a!) out)
//
// Transposes a 2-d self; a 0-d or 1-d self is copied as is. More than two
// dims is an error, as in ATen.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error t_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() <= 2, Error::InvalidArgument,
                     "t() expects a tensor with <= 2 dims, but self has %d", self->dim());
  StridedView view = view_of(*self);
  if (view.rank == 2) {
    const int perm[2] = {1, 0};
    view_permute(view, perm);
  }
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
