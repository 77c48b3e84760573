// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
//
// Tiles self: len(repeats) >= self.dim() (self is padded with leading
// size-1 dims), every repeat >= 0, and out.size(k) = size_k * repeats[k].
//
// Done as one strided copy of rank 2 * len(repeats): out dim k is seen as
// (repeats[k], size_k), and self as the same shape with stride 0 along each
// repeat dim.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error repeat_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> repeats, int_list_arg(args, 1, "repeats"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const int rank = static_cast<int>(repeats.size());
  TE_CHECK_OR_RETURN(rank >= self->dim() && rank <= kTensorDimensionLimit,
                     Error::InvalidArgument,
                     "repeat: %d repeats given for a %d-d tensor (need %d..%d)", rank,
                     self->dim(), self->dim(), kTensorDimensionLimit);
  const int lead = rank - self->dim();
  int64_t sizes[kTensorDimensionLimit];
  StridedView from;  // (repeat, size) pairs of the padded self
  from.data = static_cast<char*>(self->mutable_data());
  from.element_size = element_size(self->dtype());
  from.rank = 2 * rank;
  for (int k = 0; k < rank; ++k) {
    TE_CHECK_OR_RETURN(repeats[k] >= 0, Error::InvalidArgument,
                       "repeat: repeats[%d] = %lld is negative", k,
                       static_cast<long long>(repeats[k]));
    const int64_t size = k < lead ? 1 : self->size(k - lead);
    from.sizes[2 * k] = repeats[k];
    from.strides[2 * k] = 0;
    from.sizes[2 * k + 1] = size;
    from.strides[2 * k + 1] = k < lead ? 0 : self->stride(k - lead);
    TE_CHECK_OR_RETURN(size == 0 || repeats[k] <= INT32_MAX / size, Error::InvalidArgument,
                       "repeat: output size at dim %d overflows", k);
    sizes[k] = size * repeats[k];
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(rank)}));
  StridedView to = from;  // same (repeat, size) shape over out's memory
  to.data = static_cast<char*>(out->mutable_data());
  for (int k = 0; k < rank; ++k) {
    to.strides[2 * k] = from.sizes[2 * k + 1] * out->stride(k);
    to.strides[2 * k + 1] = out->stride(k);
  }
  return copy_view(from, to);
}

}  // namespace native
}  // namespace torchedge
