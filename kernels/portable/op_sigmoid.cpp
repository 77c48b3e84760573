// aten::sigmoid.out(Tensor self, *, Tensor(a!) out)
//
// out = 1 / (1 + exp(-self)). Floating dtypes; integral and bool inputs
// give float32; complex64 and complex128 too. `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error sigmoid_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "sigmoid.out", [](auto x) {
    using C = decltype(x);
    return divide_values(C(1), C(1) + std::exp(-x));
  });
}

}  // namespace native
}  // namespace torchedge
