// aten::reflection_pad3d.out(Tensor self, SymInt[6] padding, *, Tensor(a!) out) -> Tensor(a!)
//
// Pads the last 3 dim(s) of a 4-d or 5-d (batched) input; padding lists
// (before, after) pairs starting from the last dim. Reflection padding
// mirrors the input about its edges (the edge element is not repeated);
// negative pads crop. Rules, dtypes and errors: support/edge_padding.h.
#include "kernels/portable/support/edge_padding.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error reflection_pad3d_out(KernelContext& ctx, Span<EValue*> args) {
  return edge_pad_out(args, 3, EdgePadMode::kReflect, "reflection_pad3d.out");
}

}  // namespace native
}  // namespace torchedge
