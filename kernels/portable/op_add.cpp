// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
//
// out = self + alpha * other, broadcast, in ATen's promoted dtype (every
// dtype; integers wrap; bool + bool is logical or). `out` may have any
// dtype the result casts to. alpha must not be floating for an integral
// result, nor bool for a non-bool one.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
template <typename C>
C add_scaled(C x, C alpha, C y) {
  return wrapping_add(x, wrapping_mul(alpha, y));
}
}  // namespace

Error add_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 2, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_valid_alpha(*alpha, common, "add.out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "add.out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kAllTypes | kComplexTypes>(common, "add.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C a = scalar_to<C>(*alpha);
    return map_binary<T, T, T>(*self, *other, *out, [a](C x, C y) { return add_scaled(x, a, y); });
  });
}

Error add_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 2, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_valid_alpha(*alpha, common, "add.Scalar_out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "add.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllTypes | kComplexTypes>(common, "add.Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C a = scalar_to<C>(*alpha);
    const C y = scalar_to<C>(*other);
    return map_unary<T, T>(*self, *out, [a, y](C x) { return add_scaled(x, a, y); });
  });
}

}  // namespace native
}  // namespace torchedge
