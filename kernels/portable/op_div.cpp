// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
// aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
// aten::div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
//
// out = self / other, broadcast. Without a rounding mode this is true
// division: integral and bool operands are converted to float32 first.
// With "trunc" or "floor" the promoted dtype is kept (not bool) and the
// quotient is rounded toward zero or down; an integer division by zero is
// an error (out is then partly written). `out` may have any dtype the
// result casts to.
#include <cmath>
#include <cstring>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

enum class Rounding { kNone, kTrunc, kFloor };

Result<Rounding> rounding_mode_arg(Span<EValue*> args, size_t index) {
  if (index < args.size() && args[index] != nullptr && args[index]->is_none()) {
    return Rounding::kNone;
  }
  TE_ASSIGN_OR_RETURN(StringView mode, string_arg(args, index, "rounding_mode"));
  auto is = [&](const char* s) {
    return mode.size == strlen(s) && memcmp(mode.data, s, mode.size) == 0;
  };
  if (is("trunc")) return Rounding::kTrunc;
  if (is("floor")) return Rounding::kFloor;
  record_error_message("div: rounding_mode must be None, 'trunc' or 'floor', got '%.*s'",
                       static_cast<int>(mode.size), mode.data);
  return Error::InvalidArgument;
}

template <typename C>
C div_trunc(C a, C b, bool* by_zero) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::trunc(a / b);
  } else {
    if (b == 0) {
      *by_zero = true;
      return C(0);
    }
    return b == C(-1) ? wrapping_neg(a) : static_cast<C>(a / b);  // no INT_MIN / -1 trap
  }
}

// ATen's floor division: Python semantics, and for floats the quotient is
// derived from fmod so that it is exact where a / b would round.
template <typename C>
C div_floor(C a, C b, bool* by_zero) {
  if constexpr (std::is_floating_point_v<C>) {
    if (b == 0) return a / b;
    const C mod = std::fmod(a, b);
    C div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= C(1);
    if (div == 0) return std::copysign(C(0), a / b);
    C floordiv = std::floor(div);
    if (div - floordiv > C(0.5)) floordiv += C(1);
    return floordiv;
  } else {
    if (b == 0) {
      *by_zero = true;
      return C(0);
    }
    if (b == C(-1)) return wrapping_neg(a);
    const C quot = static_cast<C>(a / b);
    const bool inexact = static_cast<C>(a % b) != 0;
    return ((a < 0) != (b < 0)) && inexact ? static_cast<C>(quot - 1) : quot;
  }
}

// Divides `self` by the tensor `other_t` or, when it is null, the scalar
// `other_s`, after the arguments were checked.
Error divide(const Tensor& self, const Tensor* other_t, const EValue* other_s, Rounding mode,
             Tensor& out, const char* op) {
  ScalarType common = other_t ? result_type(self, *other_t) : result_type(self, *other_s);
  if (mode == Rounding::kNone) common = to_floating(common);
  TE_RETURN_IF_ERROR(expect_castable(common, out, op));
  TE_RETURN_IF_ERROR(other_t ? resize_to_broadcast(out, self, *other_t) : resize_like(out, self));
  TE_CHECK_OR_RETURN(mode == Rounding::kNone || !is_complex(common), Error::InvalidType,
                     "%s: rounding division is not supported for complex inputs (got %s)", op,
                     to_string(common));
  bool by_zero = false;
  const Error err = switch_dtype_only<kRealTypes | kComplexTypes>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    auto quotient = [mode, &by_zero](C a, C b) -> C {
      if constexpr (is_complex_v<C>) {
        return complex_div(a, b);  // mode is kNone (checked above)
      } else {
        if (mode == Rounding::kTrunc) return div_trunc(a, b, &by_zero);
        if (mode == Rounding::kFloor) return div_floor(a, b, &by_zero);
        return a / b;  // kNone: C is floating here
      }
    };
    if (other_t != nullptr) return map_binary<T, T, T>(self, *other_t, out, quotient);
    const C b = scalar_to<C>(*other_s);  // like ATen: not rounded to T first
    return map_unary<T, T>(self, out, [&quotient, b](C a) { return quotient(a, b); });
  });
  TE_RETURN_IF_ERROR(err);
  TE_CHECK_OR_RETURN(!by_zero, Error::InvalidArgument, "%s: integer division by zero", op);
  return Error::Ok;
}

Error expect_no_bool_rounding(ScalarType common, Rounding mode, const char* op) {
  TE_CHECK_OR_RETURN(mode == Rounding::kNone || common != ScalarType::Bool, Error::InvalidType,
                     "%s: rounding division is not supported for bool", op);
  return Error::Ok;
}

}  // namespace

Error div_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  return divide(*self, other, nullptr, Rounding::kNone, *out, "div.out");
}

Error div_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  return divide(*self, nullptr, other, Rounding::kNone, *out, "div.Scalar_out");
}

Error div_out_mode(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Rounding mode, rounding_mode_arg(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_no_bool_rounding(result_type(*self, *other), mode, "div.out_mode"));
  return divide(*self, other, nullptr, mode, *out, "div.out_mode");
}

Error div_scalar_mode_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Rounding mode, rounding_mode_arg(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(
      expect_no_bool_rounding(result_type(*self, *other), mode, "div.Scalar_mode_out"));
  return divide(*self, nullptr, other, mode, *out, "div.Scalar_mode_out");
}

}  // namespace native
}  // namespace torchedge
