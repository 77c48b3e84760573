// aten::tan.out(Tensor self, *, Tensor(a!) out)
//
// out = tan(self), elementwise. Floating dtypes; integral and bool inputs give
// float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error tan_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "tan.out", [](auto x) { return std::tan(x); });
}

}  // namespace native
}  // namespace torchedge
