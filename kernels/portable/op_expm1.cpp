// aten::expm1.out(Tensor self, *, Tensor(a!) out)
//
// out = exp(self) - 1, accurate for small self, elementwise. Floating dtypes;
// integral and bool inputs give float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error expm1_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "expm1.out", [](auto x) { return std::expm1(x); });
}

}  // namespace native
}  // namespace torchedge
