// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
// aten::_unsafe_view.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
//
// Copies self into out reshaped to `size` (one entry may be -1): element i
// of self in logical row-major order becomes element i of out, whatever the
// two tensors' dim orders. out must have self's dtype and rank len(size).
// _unsafe_view differs from view only in autograd, so both share this code.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "kernels/portable/support/view_shape.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
Error reshape_copy(Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "size"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int64_t sizes[kTensorDimensionLimit];
  const int64_t numel = static_cast<int64_t>(self->numel());
  TE_RETURN_IF_ERROR(infer_view_sizes(size, numel, sizes));
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, size.size()}));
  return copy_linear(view_of(*self), 0, view_of(*out), 0, numel);
}
}  // namespace

Error view_copy_out(KernelContext& ctx, Span<EValue*> args) { return reshape_copy(args); }

Error _unsafe_view_out(KernelContext& ctx, Span<EValue*> args) { return reshape_copy(args); }

}  // namespace native
}  // namespace torchedge
