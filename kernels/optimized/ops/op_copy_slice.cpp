// aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None,
//     SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
//
// Fast case: self at least 1-d, step > 0, dim in range, out of self's dtype
// in the default dim order. Bounds follow Python slicing (None = the dim's
// start / end, negative from the end, clamped), as in the portable kernel.
// The narrowed view is copied by copy/dense_copy.h (memcpy runs, threaded
// for large tensors). Everything else goes to the portable kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {
namespace {

int64_t clamp_bound(int64_t value, int64_t size) {
  if (value < 0) value += size;
  if (value < 0) return 0;
  return value > size ? size : value;
}

bool optional_int(const EValue* v, int64_t none_value, int64_t* out) {
  if (v->is_none()) {
    *out = none_value;
    return true;
  }
  if (!v->is_int()) return false;
  *out = v->to_int();
  return true;
}

}  // namespace

Error slice_copy_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  int64_t start = 0, end = 0;
  int d = 0;
  if (args.size() != 6 || !is_tensor_at(args, 0) || !is_int_at(args, 1) ||
      !optional_int(args[2], 0, &start) || !optional_int(args[3], INT64_MAX, &end) ||
      !is_int_at(args, 4) || args[4]->to_int() <= 0 || !is_tensor_at(args, 5)) {
    return native::slice_copy_tensor_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[5]->to_tensor();
  if (self.dim() == 0 || self.dtype() != out.dtype() || !out.is_contiguous() ||
      !wrap_dim(args[1]->to_int(), self.dim(), &d)) {
    return native::slice_copy_tensor_out(ctx, args);
  }
  const int64_t step = args[4]->to_int();
  const int64_t size = self.size(d);
  const int64_t first = clamp_bound(start, size);
  const int64_t last = clamp_bound(end, size);
  const int64_t length = last > first ? (last - first - 1) / step + 1 : 0;
  StridedView view = view_of(self);
  view_narrow(view, d, first, length, step);
  return copy_view_to_out(view, out);
}

}  // namespace optimized
}  // namespace torchedge
