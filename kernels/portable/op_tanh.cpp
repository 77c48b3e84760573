// aten::tanh.out(Tensor self, *, Tensor(a!) out)
//
// out = tanh(self) elementwise. Floating dtypes; integral and bool inputs give
// float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error tanh_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "tanh.out", [](auto x) { return std::tanh(x); });
}

}  // namespace native
}  // namespace torchedge
