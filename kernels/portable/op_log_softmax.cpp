// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// x - max - log(sum(exp(x - max))) along dim; floating dtypes, self and
// out share one. See support/softmax.h.
#include "kernels/portable/support/softmax.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error log_softmax_out(KernelContext& ctx, Span<EValue*> args) {
  return softmax_kernel</*kLog=*/true>(args, "_log_softmax.out");
}

}  // namespace native
}  // namespace torchedge
