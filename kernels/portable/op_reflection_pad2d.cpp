// aten::reflection_pad2d.out(Tensor self, SymInt[4] padding, *, Tensor(a!) out) -> Tensor(a!)
//
// Pads the last 2 dim(s) of a 3-d or 4-d (batched) input; padding lists
// (before, after) pairs starting from the last dim. Reflection padding
// mirrors the input about its edges (the edge element is not repeated);
// negative pads crop. Rules, dtypes and errors: support/edge_padding.h.
#include "kernels/portable/support/edge_padding.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error reflection_pad2d_out(KernelContext& ctx, Span<EValue*> args) {
  return edge_pad_out(args, 2, EdgePadMode::kReflect, "reflection_pad2d.out");
}

}  // namespace native
}  // namespace torchedge
