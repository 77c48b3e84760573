// aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
// aten::rsub.Tensor_out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
//
// Reversed subtraction: out = other - alpha * self, broadcast, in ATen's
// promoted dtype (every dtype but bool, as sub; integers wrap). `out` may
// have any dtype the result casts to.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
template <typename C>
C rsub_scaled(C self, C alpha, C other) {
  return wrapping_sub(other, wrapping_mul(alpha, self));
}

Error expect_no_bool(bool self_is_bool, bool other_is_bool, const char* op) {
  TE_CHECK_OR_RETURN(!self_is_bool && !other_is_bool, Error::InvalidType,
                     "%s: subtraction with a bool operand is not supported; use logical_xor "
                     "or logical_not instead", op);
  return Error::Ok;
}
}  // namespace

Error rsub_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 2, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(
      expect_no_bool(self->dtype() == ScalarType::Bool, other->is_bool(), "rsub.Scalar_out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_valid_alpha(*alpha, common, "rsub.Scalar_out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "rsub.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kRealTypes | kComplexTypes>(common, "rsub.Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C a = scalar_to<C>(*alpha);
    const C y = scalar_to<C>(*other);
    return map_unary<T, T>(*self, *out, [a, y](C x) { return rsub_scaled(x, a, y); });
  });
}

Error rsub_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 2, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_no_bool(self->dtype() == ScalarType::Bool,
                                    other->dtype() == ScalarType::Bool, "rsub.Tensor_out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_valid_alpha(*alpha, common, "rsub.Tensor_out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "rsub.Tensor_out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kRealTypes | kComplexTypes>(common, "rsub.Tensor_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C a = scalar_to<C>(*alpha);
    return map_binary<T, T, T>(*self, *other, *out,
                               [a](C x, C y) { return rsub_scaled(x, a, y); });
  });
}

}  // namespace native
}  // namespace torchedge
