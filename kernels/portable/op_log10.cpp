// aten::log10.out(Tensor self, *, Tensor(a!) out)
//
// out = log10(self), elementwise. Floating dtypes; integral and bool inputs
// give float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error log10_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "log10.out", [](auto x) { return std::log10(x); });
}

}  // namespace native
}  // namespace torchedge
