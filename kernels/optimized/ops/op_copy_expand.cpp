// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
//
// Fast case: a valid expansion (the portable kernel's rules: len(size) >=
// self.dim(), new leading dims >= 0, an existing dim keeps its size for -1
// or changes only from 1), out of self's dtype in the default dim order.
// The broadcast view is copied by copy/dense_copy.h: an identity expand is
// one memcpy, an expanded inner dim a fill, expanded outer dims repeat
// memcpy runs. Everything else goes to the portable kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {
namespace {

// The broadcast view of `self` (stride 0 along expanded dims); false where
// the portable kernel reports an error.
bool expanded_view(const Tensor& self, Span<const int64_t> size, StridedView& view) {
  const int rank = static_cast<int>(size.size());
  if (rank < self.dim() || rank > kTensorDimensionLimit) return false;
  view = view_of(self);
  const int lead = rank - self.dim();
  view.rank = rank;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t want = size[d];
    if (d < lead) {
      if (want < 0) return false;
      view.sizes[d] = want;
      view.strides[d] = 0;
      continue;
    }
    const int64_t have = self.size(d - lead);
    view.sizes[d] = have;
    view.strides[d] = self.stride(d - lead);
    if (want == -1 || want == have) continue;
    if (have != 1 || want < 0) return false;
    view.sizes[d] = want;
    view.strides[d] = 0;
  }
  return true;
}

}  // namespace

Error expand_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !is_tensor_at(args, 0) || !is_int_list_at(args, 1) ||
      !args[2]->is_bool() || !is_tensor_at(args, 3)) {
    return native::expand_copy_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[3]->to_tensor();
  StridedView view;
  if (self.dtype() != out.dtype() || !out.is_contiguous() ||
      !expanded_view(self, args[1]->to_int_list(), view)) {
    return native::expand_copy_out(ctx, args);
  }
  return copy_view_to_out(view, out);
}

}  // namespace optimized
}  // namespace torchedge
