// aten::trunc.out(Tensor self, *, Tensor(a!) out)
//
// out = self rounded toward zero, elementwise. Every dtype but bool;
// integers are already integral and are copied unchanged.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error trunc_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes>(args, "trunc.out", [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return std::trunc(x);
    } else {
      return x;
    }
  });
}

}  // namespace native
}  // namespace torchedge
