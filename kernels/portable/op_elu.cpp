// aten::elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *,
//               Tensor(a!) out)
//
// out = self > 0 ? scale * self : alpha * scale * (exp(input_scale * self) - 1),
// with exp(..) - 1 computed as expm1 (accurate near 0; -0.0 stays -0.0).
// Floating dtypes only, as in ATen (selu is this op with fixed constants).
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error elu_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 1, "alpha"));
  TE_ASSIGN_OR_RETURN(const EValue* scale, scalar_value_arg(args, 2, "scale"));
  TE_ASSIGN_OR_RETURN(const EValue* input_scale, scalar_value_arg(args, 3, "input_scale"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_castable(self->dtype(), *out, "elu.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), "elu.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C positive = scalar_to<C>(*scale);
    const C negative = scalar_to<C>(*alpha) * positive;
    const C input = scalar_to<C>(*input_scale);
    return map_unary<T, T>(*self, *out, [=](C x) {
      return x <= C(0) ? std::expm1(x * input) * negative : x * positive;
    });
  });
}

}  // namespace native
}  // namespace torchedge
