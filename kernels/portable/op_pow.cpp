// aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
// aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
// aten::pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
//
// out = self ** exponent in ATen's promoted dtype. Integers use exact
// repeated squaring (wrapping); a negative integer exponent gives 0 unless
// the base is 1 or -1, and a negative *scalar* integer exponent on an
// integer tensor is an error. For a floating tensor and a scalar exponent
// of 0.5, 2, 3, -0.5, -1 or -2, the result is computed as ATen does (sqrt,
// x*x, ...). Every dtype for Tensor_Scalar (bool ** bool stays bool), all
// but bool for the others; complex64 and complex128 use std::pow on
// std::complex with ATen's special exponents (pow_complex_scalar).
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

template <typename C>
C power(C base, C exp) {
  if constexpr (std::is_floating_point_v<C> || is_complex_v<C>) {
    return std::pow(base, exp);
  } else if constexpr (std::is_same_v<C, bool>) {
    return exp ? base : true;
  } else {
    if constexpr (std::is_signed_v<C>) {
      if (exp < 0) {
        if (base == 1) return C(1);
        if (base == -1) return (exp & 1) ? C(-1) : C(1);
        return C(0);
      }
    }
    C result = 1;
    while (exp != 0) {
      if (exp & 1) result = wrapping_mul(result, base);
      exp = static_cast<C>(exp >> 1);
      base = wrapping_mul(base, base);
    }
    return result;
  }
}

// ATen's fast paths for common floating exponents (they round differently
// from pow, so matching them matters for bit-exact results).
template <typename T>
Error pow_floating_scalar(const Tensor& self, compute_t<T> e, Tensor& out) {
  using C = compute_t<T>;
  if (e == C(0.5)) return map_unary<T, T>(self, out, [](C x) { return std::sqrt(x); });
  if (e == C(2)) return map_unary<T, T>(self, out, [](C x) { return x * x; });
  if (e == C(3)) return map_unary<T, T>(self, out, [](C x) { return x * x * x; });
  if (e == C(-0.5)) return map_unary<T, T>(self, out, [](C x) { return C(1) / std::sqrt(x); });
  if (e == C(-1)) return map_unary<T, T>(self, out, [](C x) { return C(1) / x; });
  if (e == C(-2)) return map_unary<T, T>(self, out, [](C x) { return C(1) / (x * x); });
  return map_unary<T, T>(self, out, [e](C x) { return std::pow(x, e); });
}

// ATen's complex special cases: exponent 0 fills 1 and 1 copies (std::pow
// would give NaN at 0), 0.5 / -0.5 / -1 are sqrt / rsqrt / reciprocal, and
// 2 / 3 / -2 multiply out as for floats; any other goes through std::pow.
template <typename T>
Error pow_complex_scalar(const Tensor& self, T e, Tensor& out) {
  if (e == T(0)) return map_unary<T, T>(self, out, [](T) { return T(1); });
  if (e == T(1)) return map_unary<T, T>(self, out, [](T x) { return x; });
  if (e == T(2)) return map_unary<T, T>(self, out, [](T x) { return x * x; });
  if (e == T(3)) return map_unary<T, T>(self, out, [](T x) { return x * x * x; });
  if (e == T(-2)) return map_unary<T, T>(self, out, [](T x) { return complex_div(T(1), x * x); });
  if (e == T(0.5)) return map_unary<T, T>(self, out, [](T x) { return std::sqrt(x); });
  if (e == T(-0.5)) {
    return map_unary<T, T>(self, out, [](T x) { return complex_div(T(1), std::sqrt(x)); });
  }
  if (e == T(-1)) return map_unary<T, T>(self, out, [](T x) { return complex_div(T(1), x); });
  return map_unary<T, T>(self, out, [e](T x) { return std::pow(x, e); });
}

}  // namespace

Error pow_tensor_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* exponent, scalar_value_arg(args, 1, "exponent"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *exponent);
  TE_CHECK_OR_RETURN(!is_integral(common) || !exponent->is_int() || exponent->to_int() >= 0,
                     Error::InvalidArgument,
                     "pow.Tensor_Scalar_out: integers to negative integer powers are not allowed");
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "pow.Tensor_Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllTypes | kComplexTypes>(common, "pow.Tensor_Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C e = scalar_to<C>(*exponent);
    if constexpr (is_complex_v<C>) {
      return pow_complex_scalar<T>(*self, e, *out);
    } else if constexpr (std::is_floating_point_v<C>) {
      return pow_floating_scalar<T>(*self, e, *out);
    } else {
      return map_unary<T, T>(*self, *out, [e](C x) { return power(x, e); });
    }
  });
}

Error pow_tensor_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* exponent, tensor_arg(args, 1, "exponent"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *exponent);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "pow.Tensor_Tensor_out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *exponent));
  return switch_dtype_only<kRealTypes | kComplexTypes>(common, "pow.Tensor_Tensor_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_binary<T, T, T>(*self, *exponent, *out, [](C x, C e) { return power(x, e); });
  });
}

Error pow_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const EValue* self, scalar_value_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* exponent, tensor_arg(args, 1, "exponent"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*exponent, *self);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "pow.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *exponent));
  return switch_dtype_only<kRealTypes | kComplexTypes>(common, "pow.Scalar_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C base = scalar_to<C>(*self);
    return map_unary<T, T>(*exponent, *out, [base](C e) { return power(base, e); });
  });
}

}  // namespace native
}  // namespace torchedge
