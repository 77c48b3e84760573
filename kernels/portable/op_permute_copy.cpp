// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
//
// out[i_0, ..., i_n] = self[j] where j[dims[k]] = i_k: out dim k is self dim
// dims[k]. dims must be a permutation of self's dims (negative allowed).
#include "kernels/portable/support/dim_list.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error permute_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, int_list_arg(args, 1, "dims"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(dims.size() == static_cast<size_t>(self->dim()), Error::InvalidArgument,
                     "permute: dims has %zu entries but self has %d dims", dims.size(),
                     self->dim());
  int perm[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(normalize_dim_list(dims, self->dim(), false, "permute dims", perm));
  StridedView view = view_of(*self);
  view_permute(view, perm);
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
