// aten::unfold_copy.out(Tensor self, int dimension, int size, int step, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// The copy form of Tensor.unfold: every window of `size` elements along
// `dimension`, taken every `step` elements, becomes an index of that dim
// and the window itself a new last dim. out has self's sizes with
// dimension's replaced by (n - size) / step + 1, then `size`. A 0-dim self
// counts as one element. Needs size <= n (size >= 0) and step > 0. Every
// dtype; self and out share one.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error unfold_copy_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "unfold_copy.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dimension, int_arg(args, 1, "dimension"));
  TE_ASSIGN_OR_RETURN(int64_t size, int_arg(args, 2, "size"));
  TE_ASSIGN_OR_RETURN(int64_t step, int_arg(args, 3, "step"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dimension, self->dim(), "unfold dimension"));
  StridedView view = view_of(*self);
  if (view.rank == 0) {  // a scalar unfolds as one element of a 1-dim tensor
    view.rank = 1;
    view.sizes[0] = 1;
    view.strides[0] = 1;
  }
  const int64_t n = view.sizes[dim];
  TE_CHECK_OR_RETURN(step > 0, Error::InvalidArgument, "%s: step must be > 0, got %lld", kOp,
                     static_cast<long long>(step));
  TE_CHECK_OR_RETURN(size >= 0 && size <= n, Error::InvalidArgument,
                     "%s: size %lld must be in [0, %lld] (the size of dim %d)", kOp,
                     static_cast<long long>(size), static_cast<long long>(n), dim);
  TE_CHECK_OR_RETURN(out->dim() == (self->dim() == 0 ? 1 : self->dim() + 1),
                     Error::InvalidArgument, "%s: out has %d dims, expected %d", kOp, out->dim(),
                     self->dim() == 0 ? 1 : self->dim() + 1);
  if (self->dim() == 0) {  // out = [size] (0 or 1 elements)
    view.sizes[0] = size;
    return copy_view_to(view, *out);
  }
  const int64_t windows = (n - size) / step + 1;
  view.sizes[view.rank] = size;
  view.strides[view.rank] = view.strides[dim];
  view.sizes[dim] = windows;
  view.strides[dim] *= step;
  view.rank += 1;
  return copy_view_to(view, *out);
}

}  // namespace native
}  // namespace torchedge
