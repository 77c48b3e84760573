// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()
//
// out[i] = self.select(dim, i) for every i < self.size(dim); out must hold
// exactly self.size(dim) tensors of self's dtype. A 0-d self is an error.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error unbind_copy_int_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> outs, tensor_list_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "unbind cannot be applied to a 0-d tensor");
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "unbind dim"));
  TE_CHECK_OR_RETURN(static_cast<int64_t>(outs.size()) == self->size(d), Error::InvalidArgument,
                     "unbind: dim %d has size %d but %zu out tensors were given", d, self->size(d),
                     outs.size());
  StridedView part = view_of(*self);
  view_select(part, d, 0);
  for (size_t i = 0; i < outs.size(); ++i) {
    TE_RETURN_IF_ERROR(expect_same_dtype(*self, *outs[i], "self", "out"));
    TE_CHECK_OR_RETURN(outs[i]->dim() == part.rank, Error::InvalidArgument,
                       "unbind: out[%zu] has rank %d, expected %d", i, outs[i]->dim(), part.rank);
    TE_RETURN_IF_ERROR(resize_to(*outs[i], {part.sizes, static_cast<size_t>(part.rank)}));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    StridedView slice = view_of(*self);
    view_select(slice, d, static_cast<int64_t>(i));
    TE_RETURN_IF_ERROR(copy_view(slice, view_of(*outs[i])));
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
