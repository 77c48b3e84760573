// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self - floor(self / other) * other (Python's %: the result takes the
// sign of other), broadcast, in ATen's promoted dtype, which must not be
// bool. Floating results come from fmod, so they are exact; a floating
// remainder by 0 is NaN, an integer one is an error (out is then partly
// written). `out` may have any dtype the result casts to.
#include <cmath>

#include "kernels/portable/support/binary_kernels.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

template <typename C>
C python_remainder(C a, C b, bool* by_zero) {
  if constexpr (std::is_floating_point_v<C>) {
    C mod = std::fmod(a, b);
    if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
    return mod;
  } else {
    if (b == 0) {
      *by_zero = true;
      return C(0);
    }
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);  // INT_MIN % -1 traps in C++
      C mod = static_cast<C>(a % b);
      if (mod != 0 && (b < 0) != (mod < 0)) mod = static_cast<C>(mod + b);
      return mod;
    } else {
      return static_cast<C>(a % b);
    }
  }
}

}  // namespace

Error remainder_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  bool by_zero = false;
  const Error err = binary_tensor_kernel<kRealTypes>(
      args, "remainder.Tensor_out",
      [&by_zero](auto x, auto y) { return python_remainder(x, y, &by_zero); });
  return expect_no_division_by_zero(err, by_zero, "remainder.Tensor_out");
}

Error remainder_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  bool by_zero = false;
  const Error err = binary_scalar_kernel<kRealTypes>(
      args, "remainder.Scalar_out",
      [&by_zero](auto x, auto y) { return python_remainder(x, y, &by_zero); });
  return expect_no_division_by_zero(err, by_zero, "remainder.Scalar_out");
}

}  // namespace native
}  // namespace torchedge
