// aten::hardswish.out(Tensor self, *, Tensor(a!) out)
//
// out = self * clamp(self + 3, 0, 6) / 6. Floating dtypes only.
#include <algorithm>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error hardswish_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kFloatingTypes>(args, "hardswish.out", [](auto x) {
    using C = decltype(x);
    return x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
  });
}

}  // namespace native
}  // namespace torchedge
