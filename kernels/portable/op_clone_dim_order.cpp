// aten::_clone_dim_order.out and dim_order_ops::_clone_dim_order.out
//     (Tensor self, *, bool non_blocking=False, int[]? dim_order=None, Tensor(a!) out)
//
// The dim-order form of clone that upstream ExecuTorch emits: copies self
// into out by logical index. out's own dim order is the result's layout;
// dim_order, when given, must equal it. non_blocking has no meaning for a
// synchronous CPU copy and is ignored. Same dtype for self and out.
#include "kernels/portable/support/dim_list.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error _clone_dim_order_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(args, 1, "non_blocking"));
  (void)non_blocking;
  bool has_dim_order = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dim_order,
                      optional_int_list_arg(args, 2, "dim_order", &has_dim_order));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  if (has_dim_order) TE_RETURN_IF_ERROR(expect_out_dim_order(dim_order, *out));
  return copy_view_to(view_of(*self), *out);
}

}  // namespace native
}  // namespace torchedge
