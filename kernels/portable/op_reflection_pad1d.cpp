// aten::reflection_pad1d.out(Tensor self, SymInt[2] padding, *, Tensor(a!) out) -> Tensor(a!)
//
// Pads the last 1 dim(s) of a 2-d or 3-d (batched) input; padding lists
// (before, after) pairs starting from the last dim. Reflection padding
// mirrors the input about its edges (the edge element is not repeated);
// negative pads crop. Rules, dtypes and errors: support/edge_padding.h.
#include "kernels/portable/support/edge_padding.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error reflection_pad1d_out(KernelContext& ctx, Span<EValue*> args) {
  return edge_pad_out(args, 1, EdgePadMode::kReflect, "reflection_pad1d.out");
}

}  // namespace native
}  // namespace torchedge
