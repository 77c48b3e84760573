// aten::acosh.out(Tensor self, *, Tensor(a!) out)
//
// out = acosh(self) (NaN below 1), elementwise. Floating dtypes; integral and
// bool inputs give float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error acosh_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "acosh.out", [](auto x) { return std::acosh(x); });
}

}  // namespace native
}  // namespace torchedge
