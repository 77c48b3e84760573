// torchedge/kernels/portable/support/binary_kernels.h
//
// Kernel skeletons for binary ops that compute in ATen's promoted dtype and
// differ only in the function applied (maximum, bitwise_or, fmod, ...): the
// binary counterparts of unary_kernel() in elementwise.h.
//
//   Error maximum_out(KernelContext& ctx, Span<EValue*> args) {
//     return binary_tensor_kernel<kAllTypes>(
//         args, "maximum.out", [](auto x, auto y) { return max_propagate_nan(x, y); });
//   }
//
// `fn` is a generic callable taking two compute_t<T> values of the promoted
// dtype T and returning something convertible to compute_t<T>. A promoted
// dtype outside kAllowed is an InvalidType error naming the op; `out` may
// have any dtype the promoted dtype casts to (ATen's can_cast).
#pragma once

#include "kernels/portable/support/elementwise.h"

namespace torchedge {

/// `<op>(Tensor self, Tensor other, *, Tensor(a!) out)`: self and other
/// broadcast, both converted to their promoted dtype (result_type).
template <DtypeSet kAllowed, typename Fn>
Error binary_tensor_kernel(Span<EValue*> args, const char* op, Fn fn) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, op));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kAllowed>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_binary<T, T, T>(*self, *other, *out,
                               [&fn](C x, C y) { return static_cast<C>(fn(x, y)); });
  });
}

/// `<op>(Tensor self, Scalar other, *, Tensor(a!) out)`: `other` is first
/// converted to the promoted dtype, as ATen does by wrapping it in a tensor
/// of that dtype (so 0.1 is rounded to float16 for a float16 tensor).
template <DtypeSet kAllowed, typename Fn>
Error binary_scalar_kernel(Span<EValue*> args, const char* op, Fn fn) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, op));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllowed>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C y = static_cast<C>(convert_element<T>(scalar_to<C>(*other)));
    return map_unary<T, T>(*self, *out, [&fn, y](C x) { return static_cast<C>(fn(x, y)); });
  });
}

/// The error of an integer division op whose loop saw a zero divisor (its
/// op sets *by_zero and returns 0); `err`, the loop's own result, comes
/// first.
inline Error expect_no_division_by_zero(Error err, bool by_zero, const char* op) {
  TE_RETURN_IF_ERROR(err);
  TE_CHECK_OR_RETURN(!by_zero, Error::InvalidArgument, "%s: integer division by zero", op);
  return Error::Ok;
}

}  // namespace torchedge
