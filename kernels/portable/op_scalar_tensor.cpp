// aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out)
//
// Sets the rank-0 tensor out to s converted to out's dtype (any dtype;
// overflowing an integral dtype is an error, a floating one gives inf).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error scalar_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const EValue* value, scalar_value_arg(args, 0, "s"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  // Eager checks overflow into integral dtypes only (1e10 -> float16 is inf).
  if (!is_floating(out->dtype())) {
    TE_RETURN_IF_ERROR(expect_scalar_fits(*value, out->dtype(), "scalar_tensor.out"));
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {}));
  return fill_with_scalar(*out, *value, "scalar_tensor.out");
}

}  // namespace native
}  // namespace torchedge
