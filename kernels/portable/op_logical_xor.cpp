// aten::logical_xor.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = (self != 0) != (other != 0), broadcast. Any input dtypes; `out` is
// bool, or any other dtype (1 / 0).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error logical_xor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return map_binary<bool, bool, bool>(*self, *other, *out, [](bool x, bool y) { return x != y; });
}

}  // namespace native
}  // namespace torchedge
