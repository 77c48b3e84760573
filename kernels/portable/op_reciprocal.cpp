// aten::reciprocal.out(Tensor self, *, Tensor(a!) out)
//
// out = 1 / self elementwise. Floating dtypes; integral and bool inputs give
// float32; complex64 and complex128 divide as eager does (complex_div).
// `out` may have any floating dtype.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error reciprocal_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_floating_kernel<kComplexTypes>(args, "reciprocal.out",
                                              [](auto x) { return divide_values(decltype(x)(1), x); });
}

}  // namespace native
}  // namespace torchedge
