// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
//
// out = clamp(self, min_val, max_val) in self's dtype (the bounds are
// converted to it, so an integer tensor clamps to truncated bounds; a bound
// that overflows the dtype is an error, and so is a negative bound for
// uint8). NaN stays NaN. Every dtype but bool.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error hardtanh_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* lo, scalar_value_arg(args, 1, "min_val"));
  TE_ASSIGN_OR_RETURN(const EValue* hi, scalar_value_arg(args, 2, "max_val"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(self->dtype() != ScalarType::Bool, Error::InvalidType,
                     "hardtanh.out: bool inputs are not supported");
  TE_CHECK_OR_RETURN(info(self->dtype()).is_signed ||
                         (lo->scalar_as_double() >= 0 && hi->scalar_as_double() >= 0),
                     Error::InvalidArgument,
                     "hardtanh.out: cannot do hardtanh on an unsigned type with negative limits");
  TE_RETURN_IF_ERROR(expect_scalar_fits(*lo, self->dtype(), "hardtanh.out"));
  TE_RETURN_IF_ERROR(expect_scalar_fits(*hi, self->dtype(), "hardtanh.out"));
  TE_RETURN_IF_ERROR(expect_castable(self->dtype(), *out, "hardtanh.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kRealTypes>(self->dtype(), "hardtanh.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C min_c = static_cast<C>(convert_element<T>(scalar_to<C>(*lo)));
    const C max_c = static_cast<C>(convert_element<T>(scalar_to<C>(*hi)));
    return map_unary<T, T>(*self, *out, [min_c, max_c](C x) {
      return min_propagate_nan(max_propagate_nan(x, min_c), max_c);
    });
  });
}

}  // namespace native
}  // namespace torchedge
