// aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// The functional form of self.copy_(src) (what export emits for an
// in-place copy into a non-buffer tensor): out has self's shape and dtype
// and holds src broadcast to that shape and converted to the dtype as
// ATen's copy_ converts (support/convert_copy.h). src must broadcast to
// self's shape (never the other way); non_blocking has no meaning here.
// Every dtype; any dim order.
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error copy_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "copy.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 1, "src"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(src->dim() <= self->dim(), Error::InvalidArgument,
                     "%s: src (%d-d) has more dims than self (%d-d)", kOp, src->dim(),
                     self->dim());
  // src seen with self's shape: missing leading dims and size-1 dims broadcast.
  StridedView from = view_of(*src);
  from.rank = self->dim();
  const int shift = self->dim() - src->dim();
  for (int d = self->dim() - 1; d >= 0; --d) {
    const int sd = d - shift;
    const int64_t size = sd >= 0 ? src->size(sd) : 1;
    TE_CHECK_OR_RETURN(size == self->size(d) || size == 1, Error::InvalidArgument,
                       "%s: src size %lld does not broadcast to self size %d at dim %d", kOp,
                       static_cast<long long>(size), self->size(d), d);
    from.sizes[d] = self->size(d);
    from.strides[d] = sd >= 0 && size != 1 ? src->stride(sd) : 0;
  }
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return convert_view(from, src->dtype(), view_of(*out), out->dtype(), kOp);
}

}  // namespace native
}  // namespace torchedge
