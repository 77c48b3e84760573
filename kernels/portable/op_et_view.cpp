// executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor
//
// Upstream ExecuTorch emits this for a view whose input and output may
// share memory; the emitted instruction passes (self, size, out). Unlike
// every other kernel here it copies nothing: out is resized to `size` (one
// entry may be -1) and then pointed at self's memory with set_data, so out
// ALIASES self until the next et_view on it. The memory planner leaves such
// an out unplanned for this reason. Both tensors must be in the default
// (contiguous) dim order, where a view is the same bytes; out's dtype must
// equal self's.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/view_shape.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error et_view(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "size"));
  TE_ASSIGN_OR_RETURN(Tensor* out, unbound_view_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->is_contiguous() && out->is_contiguous(), Error::NotSupported,
                     "et_view needs self and out in the contiguous dim order to share memory");
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(infer_view_sizes(size, static_cast<int64_t>(self->numel()), sizes));
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, size.size()}));
  out->set_data(self->mutable_data());
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
