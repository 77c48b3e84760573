// aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = atan2(self, other): the angle of the point (other, self), in
// [-pi, pi], broadcast. Computed in the promoted dtype of self and other,
// or float32 when that is integral or bool. `out` may have any floating
// dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error atan2_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = to_floating(result_type(*self, *other));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "atan2.out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kFloatingTypes>(common, "atan2.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_binary<T, T, T>(*self, *other, *out, [](C y, C x) { return std::atan2(y, x); });
  });
}

}  // namespace native
}  // namespace torchedge
