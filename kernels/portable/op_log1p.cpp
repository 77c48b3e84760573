// aten::log1p.out(Tensor self, *, Tensor(a!) out)
//
// out = log(1 + self), accurate for small self, elementwise. Floating dtypes;
// integral and bool inputs give float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error log1p_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "log1p.out", [](auto x) { return std::log1p(x); });
}

}  // namespace native
}  // namespace torchedge
