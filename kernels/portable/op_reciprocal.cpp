// aten::reciprocal.out(Tensor self, *, Tensor(a!) out)
//
// out = 1 / self elementwise. Floating dtypes; integral and bool inputs give
// float32. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error reciprocal_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel(args, "reciprocal.out", [](auto x) { return decltype(x)(1) / x; });
}

}  // namespace native
}  // namespace torchedge
