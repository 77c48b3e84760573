// aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
//
// out = self > 0 ? self : self * negative_slope. Floating dtypes only.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error leaky_relu_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* slope, scalar_value_arg(args, 1, "negative_slope"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_castable(self->dtype(), *out, "leaky_relu.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), "leaky_relu.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C s = scalar_to<C>(*slope);
    return map_unary<T, T>(*self, *out, [s](C x) { return x > C(0) ? x : x * s; });
  });
}

}  // namespace native
}  // namespace torchedge
