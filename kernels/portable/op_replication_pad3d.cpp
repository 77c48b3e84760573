// aten::replication_pad3d.out(Tensor self, SymInt[6] padding, *, Tensor(a!) out) -> Tensor(a!)
//
// Pads the last 3 dim(s) of a 4-d or 5-d (batched) input; padding lists
// (before, after) pairs starting from the last dim. Replication padding
// repeats the input's edge elements; negative pads crop. Rules, dtypes
// and errors: support/edge_padding.h.
#include "kernels/portable/support/edge_padding.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error replication_pad3d_out(KernelContext& ctx, Span<EValue*> args) {
  return edge_pad_out(args, 3, EdgePadMode::kReplicate, "replication_pad3d.out");
}

}  // namespace native
}  // namespace torchedge
