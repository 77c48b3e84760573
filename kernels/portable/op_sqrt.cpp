// aten::sqrt.out(Tensor self, *, Tensor(a!) out)
//
// out = sqrt(self) elementwise (NaN below 0). Floating dtypes; integral and
// bool inputs give float32. `out` may have any floating dtype.
// complex64 and complex128 compute with std::sqrt on std::complex, as ATen does.

#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error sqrt_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "sqrt.out", [](auto x) { return std::sqrt(x); });
}

}  // namespace native
}  // namespace torchedge
