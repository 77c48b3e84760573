// Integer arithmetic and floating-point bit manipulation, elementwise,
// broadcast, in the promoted dtype of the operands (as eager):
//
// aten::gcd.out / aten::lcm.out(Tensor self, Tensor other, *, Tensor(a!) out)
//   integral dtypes; gcd >= 0 (gcd(0, 0) = 0); lcm = |a / gcd * b| in the
//   dtype (wrapping, as eager), 0 when either is 0.
// aten::bitwise_left_shift.Tensor_out / bitwise_right_shift.Tensor_out
//     (Tensor self, Tensor other, *, Tensor(a!) out)
//   integral dtypes; a shift by a negative amount or by the dtype's width or
//   more gives 0 (left) or the sign fill (right), as eager; a left shift
//   wraps.
// aten::nextafter.out(Tensor self, Tensor other, *, Tensor(a!) out)
//   float32 / float64: the next representable value after self towards other.
// aten::frexp.Tensor_out(Tensor self, *, Tensor(a!) mantissa, Tensor(b!) exponent)
//   self = mantissa * 2^exponent, |mantissa| in [0.5, 1) (0, inf and NaN keep
//   their value with exponent 0); float32 / float64, exponent int32.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/portable/support/binary_kernels.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

template <typename T>
T gcd_of(T a, T b) {
  using U = std::make_unsigned_t<T>;
  // |a| and |b| in unsigned arithmetic (no overflow at the minimum).
  U x = a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
  U y = b < 0 ? static_cast<U>(U(0) - static_cast<U>(b)) : static_cast<U>(b);
  while (y != 0) {
    const U t = static_cast<U>(x % y);
    x = y;
    y = t;
  }
  return static_cast<T>(x);
}

template <typename T>
T lcm_of(T a, T b) {
  const T g = gcd_of(a, b);
  if (g == 0) return 0;
  const auto product = (a / g) * b;  // eager's C++ arithmetic (promoted, then narrowed)
  return static_cast<T>(product < 0 ? -product : product);
}

template <typename T>
T shift_left(T a, T b) {
  constexpr int64_t kBits = 8 * sizeof(T);
  if (static_cast<int64_t>(b) < 0 || static_cast<int64_t>(b) >= kBits) return 0;
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<int>(b)));
}

template <typename T>
T shift_right(T a, T b) {
  constexpr int64_t kBits = 8 * sizeof(T);
  if (static_cast<int64_t>(b) < 0 || static_cast<int64_t>(b) >= kBits) return a < 0 ? T(-1) : T(0);
  return static_cast<T>(a >> static_cast<int>(b));
}

constexpr DtypeSet kFloat32And64 = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);

}  // namespace

Error gcd_out(KernelContext&, Span<EValue*> args) {
  return binary_tensor_kernel<kIntegralTypes>(args, "gcd.out", [](auto a, auto b) { return gcd_of(a, b); });
}

Error lcm_out(KernelContext&, Span<EValue*> args) {
  return binary_tensor_kernel<kIntegralTypes>(args, "lcm.out", [](auto a, auto b) { return lcm_of(a, b); });
}

Error bitwise_left_shift_tensor_out(KernelContext&, Span<EValue*> args) {
  return binary_tensor_kernel<kIntegralTypes>(args, "bitwise_left_shift.Tensor_out",
                                           [](auto a, auto b) { return shift_left(a, b); });
}

Error bitwise_right_shift_tensor_out(KernelContext&, Span<EValue*> args) {
  return binary_tensor_kernel<kIntegralTypes>(args, "bitwise_right_shift.Tensor_out",
                                           [](auto a, auto b) { return shift_right(a, b); });
}

Error nextafter_out(KernelContext&, Span<EValue*> args) {
  return binary_tensor_kernel<kFloat32And64>(args, "nextafter.out",
                                          [](auto a, auto b) { return std::nextafter(a, b); });
}

Error frexp_tensor_out(KernelContext&, Span<EValue*> args) {
  constexpr const char* kOp = "frexp.Tensor_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* mantissa, tensor_arg(args, 1, "mantissa"));
  TE_ASSIGN_OR_RETURN(Tensor* exponent, tensor_arg(args, 2, "exponent"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *mantissa, "self", "mantissa"));
  TE_RETURN_IF_ERROR(expect_dtype(*exponent, ScalarType::Int, "exponent"));
  TE_RETURN_IF_ERROR(resize_like(*mantissa, *self));
  TE_RETURN_IF_ERROR(resize_like(*exponent, *self));
  return switch_dtype_only<kFloat32And64>(self->dtype(), kOp, [&](auto tag) {
    using T = decltype(tag);
    auto fraction = [](T x) {
      int e = 0;
      return std::isfinite(x) ? std::frexp(x, &e) : x;
    };
    TE_RETURN_IF_ERROR((map_unary<T, T>(*self, *mantissa, fraction)));
    return map_unary<T, int32_t>(*self, *exponent, [](T x) {
      int e = 0;
      if (std::isfinite(x)) std::frexp(x, &e);
      return static_cast<int32_t>(e);
    });
  });
}

}  // namespace native
}  // namespace torchedge
