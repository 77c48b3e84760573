// torchedge::safe_softmax.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)
//
// aten._safe_softmax: softmax along dim, zeros for a lane that is all -inf
// (python/torchedge/passes/safe_softmax_op.py). See support/softmax.h.
#include "kernels/portable/support/softmax.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error safe_softmax_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  return softmax_kernel</*kLog=*/false, /*kSafe=*/true>(args, "safe_softmax.out");
}

}  // namespace native
}  // namespace torchedge
