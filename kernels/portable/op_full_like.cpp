// aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
//                     Tensor(a!) out)
//
// Resizes out to self's shape and sets every element to fill_value
// converted to out's dtype (any dtype; overflow is an error, as in ATen).
// self's values and dtype are not used; out's dim order is the layout, so
// memory_format is ignored.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error full_like_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* value, scalar_value_arg(args, 1, "fill_value"));
  TE_ASSIGN_OR_RETURN(int64_t memory_format, optional_int_arg(args, 2, "memory_format", 0));
  (void)memory_format;
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_scalar_fits(*value, out->dtype(), "full_like.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return fill_with_scalar(*out, *value, "full_like.out");
}

}  // namespace native
}  // namespace torchedge
