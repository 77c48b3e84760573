// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Copies self into out by logical index. The layout of the result is out's
// own dim order, fixed when the program was planned, so memory_format (None,
// or 0 contiguous, 1 preserve, 2 channels_last, 3 channels_last_3d) is
// validated but does not steer the copy.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error clone_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t memory_format, optional_int_arg(args, 1, "memory_format", 1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(memory_format >= 0 && memory_format <= 3, Error::InvalidArgument,
                     "clone: unknown memory_format %lld", static_cast<long long>(memory_format));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  return copy_view_to(view_of(*self), *out);
}

}  // namespace native
}  // namespace torchedge
