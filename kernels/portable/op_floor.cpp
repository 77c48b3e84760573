// aten::floor.out(Tensor self, *, Tensor(a!) out)
//
// out = self rounded down, toward -inf, elementwise. Every dtype but bool;
// integers are already integral and are copied unchanged.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error floor_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes>(args, "floor.out", [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return std::floor(x);
    } else {
      return x;
    }
  });
}

}  // namespace native
}  // namespace torchedge
