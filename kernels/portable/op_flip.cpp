// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
//
// out is self reversed along each dim in `dims` (negative allowed, no
// repeats; an empty list copies). Built as a view with negative strides.
#include "kernels/portable/support/dim_list.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error flip_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, int_list_arg(args, 1, "dims"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int flipped[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(normalize_dim_list(dims, self->dim(), false, "flip dims", flipped));
  StridedView view = view_of(*self);
  if (view.rank > 0) {  // a 0-d self accepts dim 0 and has nothing to reverse
    for (size_t i = 0; i < dims.size(); ++i) view_flip(view, flipped[i]);
  }
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
