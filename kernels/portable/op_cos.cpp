// aten::cos.out(Tensor self, *, Tensor(a!) out)
//
// out = cos(self) elementwise. Floating dtypes; integral and bool inputs give
// float32. `out` may have any floating dtype.
// complex64 and complex128 compute with std::cos on std::complex, as ATen does.

#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error cos_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "cos.out", [](auto x) { return std::cos(x); });
}

}  // namespace native
}  // namespace torchedge
