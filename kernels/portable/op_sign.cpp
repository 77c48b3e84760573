// aten::sign.out(Tensor self, *, Tensor(a!) out)
//
// out = -1, 0 or 1 by the sign of self, in self's dtype (every dtype; bool
// is copied unchanged). NaN and -0.0 give 0, as in ATen.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error sign_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kAllTypes>(args, "sign.out", [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>) {
      return x;
    } else {
      // Both comparisons are false for NaN and for either zero.
      return static_cast<C>(static_cast<int>(C(0) < x) - static_cast<int>(x < C(0)));
    }
  });
}

}  // namespace native
}  // namespace torchedge
