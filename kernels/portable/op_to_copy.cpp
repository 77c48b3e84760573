// aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//                    Tensor(a!) out)
//
// Tensor.to(dtype): copies self into out by logical index, converting each
// element to out's dtype (any pair of the ten dtypes; conversions as in
// convert_copy.h, the same as _to_dim_order_copy). out's own dim order is
// the result's layout, so memory_format is only range-checked (None or a
// c10::MemoryFormat value 0..3). non_blocking is ignored.
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error _to_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(args, 1, "non_blocking"));
  (void)non_blocking;
  TE_ASSIGN_OR_RETURN(int64_t memory_format, optional_int_arg(args, 2, "memory_format", 0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(memory_format >= 0 && memory_format <= 3, Error::InvalidArgument,
                     "_to_copy.out: unknown memory_format %lld",
                     static_cast<long long>(memory_format));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return convert_view(view_of(*self), self->dtype(), view_of(*out), out->dtype(), "_to_copy.out");
}

}  // namespace native
}  // namespace torchedge
