// aten::bitwise_and.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::bitwise_and.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self & other, broadcast, in ATen's promoted dtype, which must be
// integral or bool (bool & bool is logical and). `out` may have any dtype
// the result casts to.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
constexpr DtypeSet kBitwiseTypes = kIntegralTypes | dtype_bit(ScalarType::Bool);
}  // namespace

Error bitwise_and_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "bitwise_and.Tensor_out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kBitwiseTypes>(common, "bitwise_and.Tensor_out", [&](auto tag) {
    using T = decltype(tag);
    return map_binary<T, T, T>(*self, *other, *out, [](T x, T y) { return static_cast<T>(x & y); });
  });
}

Error bitwise_and_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "bitwise_and.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kBitwiseTypes>(common, "bitwise_and.Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    const T y = scalar_to<T>(*other);
    return map_unary<T, T>(*self, *out, [y](T x) { return static_cast<T>(x & y); });
  });
}

}  // namespace native
}  // namespace torchedge
