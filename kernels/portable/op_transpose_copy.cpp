// aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)
//
// out is self with dims dim0 and dim1 swapped (negative dims allowed; a 0-d
// self accepts 0 and -1 and is copied).
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error transpose_copy_int_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim0, int_arg(args, 1, "dim0"));
  TE_ASSIGN_OR_RETURN(int64_t dim1, int_arg(args, 2, "dim1"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_ASSIGN_OR_RETURN(int d0, normalize_dim(dim0, self->dim(), "transpose dim0"));
  TE_ASSIGN_OR_RETURN(int d1, normalize_dim(dim1, self->dim(), "transpose dim1"));
  StridedView view = view_of(*self);
  if (view.rank > 0) {
    int perm[kTensorDimensionLimit];
    for (int d = 0; d < view.rank; ++d) perm[d] = d;
    perm[d0] = d1;
    perm[d1] = d0;
    view_permute(view, perm);
  }
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
