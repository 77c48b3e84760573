// aten::fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self - trunc(self / other) * other (C's fmod / %: the result takes
// the sign of self), broadcast, in ATen's promoted dtype, which must not be
// bool. A floating fmod by 0 is NaN, an integer one is an error (out is then
// partly written). `out` may have any dtype the result casts to.
#include <cmath>

#include "kernels/portable/support/binary_kernels.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

template <typename C>
C truncated_remainder(C a, C b, bool* by_zero) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmod(a, b);
  } else {
    if (b == 0) {
      *by_zero = true;
      return C(0);
    }
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);  // INT_MIN % -1 traps in C++
    }
    return static_cast<C>(a % b);
  }
}

}  // namespace

Error fmod_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  bool by_zero = false;
  const Error err = binary_tensor_kernel<kRealTypes>(
      args, "fmod.Tensor_out",
      [&by_zero](auto x, auto y) { return truncated_remainder(x, y, &by_zero); });
  return expect_no_division_by_zero(err, by_zero, "fmod.Tensor_out");
}

Error fmod_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  bool by_zero = false;
  const Error err = binary_scalar_kernel<kRealTypes>(
      args, "fmod.Scalar_out",
      [&by_zero](auto x, auto y) { return truncated_remainder(x, y, &by_zero); });
  return expect_no_division_by_zero(err, by_zero, "fmod.Scalar_out");
}

}  // namespace native
}  // namespace torchedge
