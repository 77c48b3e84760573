// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
//
// out = self - alpha * other, broadcast, in ATen's promoted dtype (every
// dtype but bool: a bool operand is an error, as in ATen; integers wrap).
// `out` may have any dtype the result casts to.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
template <typename C>
C sub_scaled(C x, C alpha, C y) {
  return wrapping_sub(x, wrapping_mul(alpha, y));
}

Error expect_no_bool(bool self_is_bool, bool other_is_bool, const char* op) {
  TE_CHECK_OR_RETURN(!self_is_bool && !other_is_bool, Error::InvalidType,
                     "%s: subtraction with a bool operand is not supported; use logical_xor "
                     "or logical_not instead", op);
  return Error::Ok;
}
}  // namespace

Error sub_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 2, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_no_bool(self->dtype() == ScalarType::Bool,
                                    other->dtype() == ScalarType::Bool, "sub.out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_valid_alpha(*alpha, common, "sub.out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "sub.out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kRealTypes | kComplexTypes>(common, "sub.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C a = scalar_to<C>(*alpha);
    return map_binary<T, T, T>(*self, *other, *out, [a](C x, C y) { return sub_scaled(x, a, y); });
  });
}

Error sub_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 2, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(
      expect_no_bool(self->dtype() == ScalarType::Bool, other->is_bool(), "sub.Scalar_out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_valid_alpha(*alpha, common, "sub.Scalar_out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "sub.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kRealTypes | kComplexTypes>(common, "sub.Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C a = scalar_to<C>(*alpha);
    const C y = scalar_to<C>(*other);
    return map_unary<T, T>(*self, *out, [a, y](C x) { return sub_scaled(x, a, y); });
  });
}

}  // namespace native
}  // namespace torchedge
