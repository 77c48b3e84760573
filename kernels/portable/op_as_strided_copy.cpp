// aten::as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride,
//     SymInt? storage_offset=None, *, Tensor(a!) out) -> Tensor(a!)
//
// The copy form of torch.as_strided: out[i0, ..., ik] = storage[offset +
// sum(i_d * stride[d])], where storage is self's memory as laid out (a
// planned tensor is its own storage, so offset counts from self's first
// element). size and stride have one entry per out dim; strides must be
// >= 0 and every element the view reaches must lie inside self, else
// InvalidArgument (eager would read past its storage). Every dtype; self
// and out share one.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error as_strided_copy_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "as_strided_copy.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "size"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> stride, int_list_arg(args, 2, "stride"));
  TE_ASSIGN_OR_RETURN(int64_t offset, optional_int_arg(args, 3, "storage_offset", 0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(size.size() == stride.size(), Error::InvalidArgument,
                     "%s: size has %zu entries but stride has %zu", kOp, size.size(),
                     stride.size());
  TE_CHECK_OR_RETURN(static_cast<int>(size.size()) == out->dim(), Error::InvalidArgument,
                     "%s: size has %zu entries but out has %d dims", kOp, size.size(),
                     out->dim());
  TE_CHECK_OR_RETURN(offset >= 0, Error::InvalidArgument,
                     "%s: storage_offset must be >= 0, got %lld", kOp,
                     static_cast<long long>(offset));
  // The last element reached; sizes are bounded by the tensor dim limit and
  // int32 sizes, strides by the check below, so the sum cannot overflow.
  int64_t last = offset;
  bool empty = false;
  StridedView view = view_of(*self);
  view.rank = static_cast<int>(size.size());
  for (size_t d = 0; d < size.size(); ++d) {
    TE_CHECK_OR_RETURN(size[d] >= 0 && stride[d] >= 0 && stride[d] <= INT32_MAX,
                       Error::InvalidArgument,
                       "%s: dim %zu has size %lld and stride %lld (both must be >= 0)", kOp, d,
                       static_cast<long long>(size[d]), static_cast<long long>(stride[d]));
    empty = empty || size[d] == 0;
    if (size[d] > 0) last += (size[d] - 1) * stride[d];
    view.sizes[d] = size[d];
    view.strides[d] = stride[d];
  }
  TE_CHECK_OR_RETURN(empty || last < static_cast<int64_t>(self->numel()), Error::InvalidArgument,
                     "%s: the view reaches element %lld of self, which has %zu elements", kOp,
                     static_cast<long long>(last), self->numel());
  if (!empty) view.data += static_cast<size_t>(offset) * view.element_size;
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
