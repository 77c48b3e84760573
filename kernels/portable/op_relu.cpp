// aten::relu.out(Tensor self, *, Tensor(a!) out)
//
// out = max(self, 0), keeping NaN and -0.0 as ATen does. Every dtype but
// bool; `out` normally has self's dtype (any dtype it casts to is taken).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error relu_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes>(args, "relu.out", [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      return x < C(0) ? C(0) : x;
    }
  });
}

}  // namespace native
}  // namespace torchedge
