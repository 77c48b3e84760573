// aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Resizes out to `size` (out's rank must equal len(size)) and leaves its
// elements unset, as ATen does: whatever the planned memory holds. out's
// dim order is its layout, so memory_format (None or contiguous, preserve,
// channels_last, channels_last_3d: wire values 0-3) is only checked.
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error empty_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 0, "size"));
  TE_ASSIGN_OR_RETURN(int64_t memory_format, optional_int_arg(args, 1, "memory_format", 0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(memory_format >= 0 && memory_format <= 3, Error::InvalidArgument,
                     "empty.out: unknown memory_format %lld",
                     static_cast<long long>(memory_format));
  return resize_to(*out, size);
}

}  // namespace native
}  // namespace torchedge
