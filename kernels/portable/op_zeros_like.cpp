// aten::zeros_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Resizes out to self's shape and sets every element to 0 in out's dtype
// (any dtype). out's dim order is the layout, so memory_format is ignored.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error zeros_like_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t memory_format, optional_int_arg(args, 1, "memory_format", 0));
  (void)memory_format;
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return fill_with_scalar(*out, EValue(int64_t{0}), "zeros_like.out");
}

}  // namespace native
}  // namespace torchedge
