// aten::sinh.out(Tensor self, *, Tensor(a!) out)
//
// out = sinh(self), elementwise. Floating dtypes; integral and bool inputs
// give float32. `out` may have any floating dtype.
// complex64 and complex128 compute with std::sinh on std::complex, as ATen does.

#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error sinh_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "sinh.out", [](auto x) { return std::sinh(x); });
}

}  // namespace native
}  // namespace torchedge
