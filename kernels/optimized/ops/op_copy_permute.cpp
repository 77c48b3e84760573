// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
//
// Fast case: dims a valid permutation, out of self's dtype in the default
// dim order (self in any dim order). The permuted view is copied by
// copy/dense_copy.h: contiguous inner runs as memcpy, permutes that move the
// last dim (attention's [B,H,S,D] -> [B,H,D,S]) as a tiled transpose,
// threaded over rows for large tensors. Everything else, including bad
// arguments, goes to the portable kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {

Error permute_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 3 || !is_tensor_at(args, 0) || !is_int_list_at(args, 1) ||
      !is_tensor_at(args, 2)) {
    return native::permute_copy_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  int perm[kTensorDimensionLimit];
  if (self.dtype() != out.dtype() || !out.is_contiguous() ||
      !wrap_permutation(args[1]->to_int_list(), self.dim(), perm)) {
    return native::permute_copy_out(ctx, args);
  }
  StridedView view = view_of(self);
  view_permute(view, perm);
  return copy_view_to_out(view, out);
}

}  // namespace optimized
}  // namespace torchedge
