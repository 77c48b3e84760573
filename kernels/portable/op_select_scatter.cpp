// aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// out is a copy of self whose slice self.select(dim, index) is replaced by
// src. src must have exactly the slice's shape (no broadcasting, as ATen);
// its dtype may differ and is converted to self's (ATen's copy_). index may
// be negative; a 0-d self is an error. Every dtype; out has self's dtype.
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error select_scatter_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "select_scatter.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 1, "src"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 2, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t index, int_arg(args, 3, "index"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "%s: select() cannot be applied to a 0-d tensor", kOp);
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "select_scatter dim"));
  const int64_t size = self->size(d);
  TE_CHECK_OR_RETURN(index >= -size && index < size, Error::InvalidArgument,
                     "%s: index %lld out of range for dim %d of size %lld", kOp,
                     static_cast<long long>(index), d, static_cast<long long>(size));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  StridedView slot = view_of(*out);
  view_select(slot, d, index < 0 ? index + size : index);
  bool same_shape = src->dim() == slot.rank;
  for (int k = 0; same_shape && k < slot.rank; ++k) same_shape = src->size(k) == slot.sizes[k];
  TE_CHECK_OR_RETURN(same_shape, Error::InvalidArgument,
                     "%s: src (%d-d) must have the shape of self.select(%d, %lld)", kOp,
                     src->dim(), d, static_cast<long long>(index));
  TE_RETURN_IF_ERROR(copy_view(view_of(*self), view_of(*out)));
  return convert_view(view_of(*src), src->dtype(), slot, out->dtype(), kOp);
}

}  // namespace native
}  // namespace torchedge
