// aten::logical_not.out(Tensor self, *, Tensor(a!) out)
//
// out = (self == 0). Any input dtype; `out` is bool, or any other dtype
// (1 / 0).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error logical_not_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return map_unary<bool, bool>(*self, *out, [](bool x) { return !x; });
}

}  // namespace native
}  // namespace torchedge
