// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
//
// Resizes out to `size` (out's rank must equal len(size)) and sets every
// element to fill_value converted to out's dtype (any dtype; a value that
// overflows the dtype is an error, as in ATen).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error full_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 0, "size"));
  TE_ASSIGN_OR_RETURN(const EValue* value, scalar_value_arg(args, 1, "fill_value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_scalar_fits(*value, out->dtype(), "full.out"));
  TE_RETURN_IF_ERROR(resize_to(*out, size));
  return fill_with_scalar(*out, *value, "full.out");
}

}  // namespace native
}  // namespace torchedge
