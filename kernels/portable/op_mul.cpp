// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self * other, broadcast, in ATen's promoted dtype (every dtype;
// integers wrap; bool * bool is logical and). `out` may have any dtype the
// result casts to.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error mul_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "mul.out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kAllTypes | kComplexTypes>(common, "mul.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_binary<T, T, T>(*self, *other, *out, [](C x, C y) { return wrapping_mul(x, y); });
  });
}

Error mul_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "mul.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllTypes | kComplexTypes>(common, "mul.Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C y = scalar_to<C>(*other);
    return map_unary<T, T>(*self, *out, [y](C x) { return wrapping_mul(x, y); });
  });
}

}  // namespace native
}  // namespace torchedge
