// aten::cosh.out(Tensor self, *, Tensor(a!) out)
//
// out = cosh(self), elementwise. Floating dtypes; integral and bool inputs
// give float32. `out` may have any floating dtype.
// complex64 and complex128 compute with std::cosh on std::complex, as ATen does.

#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error cosh_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "cosh.out", [](auto x) { return std::cosh(x); });
}

}  // namespace native
}  // namespace torchedge
