// aten::exp.out(Tensor self, *, Tensor(a!) out)
//
// out = e ** self elementwise. Floating dtypes; integral and bool inputs give
// float32. `out` may have any floating dtype.
// complex64 and complex128 compute with std::exp on std::complex, as ATen does.

#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error exp_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "exp.out", [](auto x) { return std::exp(x); });
}

}  // namespace native
}  // namespace torchedge
