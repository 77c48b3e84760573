// aten::ceil.out(Tensor self, *, Tensor(a!) out)
//
// out = self rounded up, toward +inf, elementwise. Every dtype but bool;
// integers are already integral and are copied unchanged.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error ceil_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes>(args, "ceil.out", [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return std::ceil(x);
    } else {
      return x;
    }
  });
}

}  // namespace native
}  // namespace torchedge
