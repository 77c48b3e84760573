// aten::alias_copy.out(Tensor self, *, Tensor(a!) out)
//
// A plain copy of self into out (same dtype, same shape, out's dim order).
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error alias_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  return copy_view_to(view_of(*self), *out);
}

}  // namespace native
}  // namespace torchedge
