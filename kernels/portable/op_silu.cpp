// aten::silu.out(Tensor self, *, Tensor(a!) out)
//
// out = self * sigmoid(self) = self / (1 + exp(-self)). Floating dtypes only.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error silu_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kFloatingTypes>(args, "silu.out", [](auto x) {
    using C = decltype(x);
    return x / (C(1) + std::exp(-x));
  });
}

}  // namespace native
}  // namespace torchedge
