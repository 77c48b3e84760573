// aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
//
// Writes src into self in place, broadcasting src to self's shape and
// converting its dtype as ATen does. Programs use it to store the new value
// of a mutable buffer (a counter, a KV cache) into the buffer's memory,
// which persists across executions. self keeps its shape; non_blocking has
// no meaning on CPU. Upstream emits the call as [self, src, non_blocking,
// self]; the loader drops the trailing return slot.
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

namespace {
// src viewed with self's sizes: missing leading dims and size-1 dims are
// repeated with stride 0 (broadcasting). Fails when src does not broadcast.
Result<StridedView> broadcast_to(const Tensor& src, const Tensor& self) {
  char src_sizes[128];
  char self_sizes[128];
  TE_CHECK_OR_RETURN(src.dim() <= self.dim(), Error::InvalidArgument,
                     "copy_: src of shape %s does not broadcast to self of shape %s",
                     format_sizes(src.sizes(), src_sizes, sizeof(src_sizes)),
                     format_sizes(self.sizes(), self_sizes, sizeof(self_sizes)));
  const StridedView from = view_of(src);
  StridedView view;
  view.data = from.data;
  view.element_size = from.element_size;
  view.rank = self.dim();
  const int lead = self.dim() - src.dim();
  for (int d = 0; d < self.dim(); ++d) {
    const int s = d - lead;
    const int64_t size = s < 0 ? 1 : from.sizes[s];
    TE_CHECK_OR_RETURN(size == self.size(d) || size == 1, Error::InvalidArgument,
                       "copy_: src of shape %s does not broadcast to self of shape %s",
                       format_sizes(src.sizes(), src_sizes, sizeof(src_sizes)),
                       format_sizes(self.sizes(), self_sizes, sizeof(self_sizes)));
    view.sizes[d] = self.size(d);
    view.strides[d] = s < 0 || size != self.size(d) ? 0 : from.strides[s];
  }
  return view;
}
}  // namespace

Error copy_(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 1, "src"));
  TE_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(args, 2, "non_blocking"));
  (void)non_blocking;
  if (self->numel() == 0) return Error::Ok;
  TE_CHECK_OR_RETURN(self->data() != nullptr && src->data() != nullptr, Error::InvalidState,
                     "copy_: self or src has no memory");
  if (self->data() == src->data() && self->dtype() == src->dtype() &&
      self->numel() == src->numel()) {
    return Error::Ok;  // the value was already computed in place
  }
  TE_ASSIGN_OR_RETURN(StridedView from, broadcast_to(*src, *self));
  return convert_view(from, src->dtype(), view_of(*self), self->dtype(), "copy_");
}

}  // namespace prim
}  // namespace torchedge
