// aten::atanh.out(Tensor self, *, Tensor(a!) out)
//
// out = atanh(self) (NaN outside [-1, 1]), elementwise. Floating dtypes;
// integral and bool inputs give float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error atanh_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "atanh.out", [](auto x) { return std::atanh(x); });
}

}  // namespace native
}  // namespace torchedge
