// aten::replication_pad2d.out(Tensor self, SymInt[4] padding, *, Tensor(a!) out) -> Tensor(a!)
//
// Pads the last 2 dim(s) of a 3-d or 4-d (batched) input; padding lists
// (before, after) pairs starting from the last dim. Replication padding
// repeats the input's edge elements; negative pads crop. Rules, dtypes
// and errors: support/edge_padding.h.
#include "kernels/portable/support/edge_padding.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error replication_pad2d_out(KernelContext& ctx, Span<EValue*> args) {
  return edge_pad_out(args, 2, EdgePadMode::kReplicate, "replication_pad2d.out");
}

}  // namespace native
}  // namespace torchedge
