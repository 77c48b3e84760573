// aten::round.out(Tensor self, *, Tensor(a!) out)
// aten::round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out)
//
// out = self rounded to the nearest integer, ties to even (0.5 -> 0,
// 2.5 -> 2), or to `decimals` decimal places (negative: to tens, hundreds,
// ...) computed as ATen does: nearbyint(self * 10^d) / 10^d, with 10^d in the
// compute type (so a huge `decimals` overflows to inf and gives NaN).
// round.out takes every dtype but bool (integers are copied unchanged);
// round.decimals_out only floating dtypes, as in ATen.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error round_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes>(args, "round.out", [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return std::nearbyint(x);  // the default rounding mode rounds ties to even
    } else {
      return x;
    }
  });
}

Error round_decimals_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t decimals, int_arg(args, 1, "decimals"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_castable(self->dtype(), *out, "round.decimals_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  const bool to_tens = decimals < 0;
  const double ten_pow = std::pow(10.0, std::fabs(static_cast<double>(decimals)));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), "round.decimals_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C scale = static_cast<C>(ten_pow);
    return map_unary<T, T>(*self, *out, [scale, to_tens](C x) {
      return to_tens ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
    });
  });
}

}  // namespace native
}  // namespace torchedge
