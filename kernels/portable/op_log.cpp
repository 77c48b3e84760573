// aten::log.out(Tensor self, *, Tensor(a!) out)
//
// out = ln(self) elementwise (NaN below 0, -inf at 0). Floating dtypes;
// integral and bool inputs give float32. `out` may have any floating dtype.
// complex64 and complex128 compute with std::log on std::complex, as ATen does.

#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error log_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "log.out", [](auto x) { return std::log(x); });
}

}  // namespace native
}  // namespace torchedge
