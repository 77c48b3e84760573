// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
//
// Broadcasts self to `size`: len(size) >= self.dim(); new leading dims take
// any size >= 0; an existing dim keeps its size for -1, and may only change
// from 1 (to any size >= 0). `implicit` only matters to autograd.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
// Builds the broadcast view of `self` (stride 0 along expanded dims).
Error expanded_view(const Tensor& self, Span<const int64_t> size, StridedView& view) {
  const int rank = static_cast<int>(size.size());
  TE_CHECK_OR_RETURN(rank >= self.dim() && rank <= kTensorDimensionLimit, Error::InvalidArgument,
                     "expand: %d sizes given for a %d-d tensor (need %d..%d)", rank, self.dim(),
                     self.dim(), kTensorDimensionLimit);
  view = view_of(self);
  const int lead = rank - self.dim();
  view.rank = rank;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t want = size[d];
    if (d < lead) {
      TE_CHECK_OR_RETURN(want >= 0, Error::InvalidArgument,
                         "expand: size %lld isn't allowed in a new leading dim %d",
                         static_cast<long long>(want), d);
      view.sizes[d] = want;
      view.strides[d] = 0;
      continue;
    }
    const int64_t have = self.size(d - lead);
    view.sizes[d] = have;
    view.strides[d] = self.stride(d - lead);
    if (want == -1 || want == have) continue;
    TE_CHECK_OR_RETURN(have == 1 && want >= 0, Error::InvalidArgument,
                       "expand: size %lld must match the existing size %lld at dim %d",
                       static_cast<long long>(want), static_cast<long long>(have), d);
    view.sizes[d] = want;
    view.strides[d] = 0;
  }
  return Error::Ok;
}
}  // namespace

Error expand_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "size"));
  TE_ASSIGN_OR_RETURN(bool implicit, bool_arg(args, 2, "implicit"));
  (void)implicit;
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  StridedView view;
  TE_RETURN_IF_ERROR(expanded_view(*self, size, view));
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
