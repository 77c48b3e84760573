// aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//
// Stacks equally shaped tensors along a new dim `dim` (in
// [-(rank + 1), rank]): out.select(dim, i) == tensors[i]. Inputs are
// converted to out's dtype, which each must be castable to, as for cat.
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error stack_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> tensors, tensor_list_arg(args, 0, "tensors"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(!tensors.empty(), Error::InvalidArgument,
                     "stack expects a non-empty list of tensors");
  const Tensor& ref = *tensors[0];
  TE_CHECK_OR_RETURN(ref.dim() < kTensorDimensionLimit, Error::InvalidArgument,
                     "stack: inputs already have the maximum of %d dims", kTensorDimensionLimit);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    bool same = t.dim() == ref.dim();
    for (int d = 0; same && d < ref.dim(); ++d) same = t.size(d) == ref.size(d);
    TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                       "stack expects each tensor to be equal size, but entry %zu differs from "
                       "entry 0",
                       i);
    TE_CHECK_OR_RETURN(can_cast(t.dtype(), out->dtype()), Error::InvalidType,
                       "stack: input %zu of dtype %s can't be cast to out dtype %s", i,
                       to_string(t.dtype()), to_string(out->dtype()));
  }
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, ref.dim() + 1, "stack dim"));
  int64_t sizes[kTensorDimensionLimit];
  for (int k = 0, j = 0; k <= ref.dim(); ++k) {
    sizes[k] = k == d ? static_cast<int64_t>(tensors.size()) : ref.size(j++);
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(ref.dim() + 1)}));
  for (size_t i = 0; i < tensors.size(); ++i) {
    StridedView slot = view_of(*out);
    view_select(slot, d, static_cast<int64_t>(i));
    TE_RETURN_IF_ERROR(
        convert_view(view_of(*tensors[i]), tensors[i]->dtype(), slot, out->dtype(), "stack"));
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
