// dim_order_ops::_to_dim_order_copy.out
//     (Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out)
//
// The dim-order form of Tensor.to() that upstream ExecuTorch emits: copies
// self into out by logical index, converting to out's dtype (any pair of
// float32, float64, float16, bfloat16, uint8, int8, int16, int32, int64,
// bool; conversions as in convert_copy.h). out's own dim order is the
// result's layout; dim_order, when given, must equal it. non_blocking is
// ignored (the copy is synchronous).
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/dim_list.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error _to_dim_order_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(args, 1, "non_blocking"));
  (void)non_blocking;
  bool has_dim_order = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dim_order,
                      optional_int_list_arg(args, 2, "dim_order", &has_dim_order));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  if (has_dim_order) TE_RETURN_IF_ERROR(expect_out_dim_order(dim_order, *out));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return convert_view(view_of(*self), self->dtype(), view_of(*out), out->dtype(),
                      "_to_dim_order_copy");
}

}  // namespace native
}  // namespace torchedge
