// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//     Tensor(a!)[] out) -> ()
//
// Fast case: self at least 1-d, valid sizes (each in [0, size(dim)], summing
// to size(dim)), one out per size, each of self's dtype and rank in the
// default dim order (self in any dim order). Each chunk is a narrowed view
// copied by copy/dense_copy.h (memcpy runs, threaded when large). Every out
// is resized before any data moves, as in the portable kernel. Everything
// else goes to the portable kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {
namespace {

bool fast_case(const Tensor& self, Span<const int64_t> split_sizes, int64_t dim_arg,
               Span<Tensor* const> outs, int* dim) {
  if (self.dim() == 0 || !wrap_dim(dim_arg, self.dim(), dim)) return false;
  if (outs.size() != split_sizes.size()) return false;
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    const Tensor* o = outs[i];
    if (split_sizes[i] < 0 || split_sizes[i] > self.size(*dim) || o == nullptr ||
        o->dtype() != self.dtype() || o->dim() != self.dim() || !o->is_contiguous()) {
      return false;
    }
    total += split_sizes[i];
  }
  return total == self.size(*dim);
}

}  // namespace

Error split_with_sizes_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !is_tensor_at(args, 0) || !is_int_list_at(args, 1) ||
      !is_int_at(args, 2) || !is_tensor_list_at(args, 3)) {
    return native::split_with_sizes_copy_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  const Span<const int64_t> split_sizes = args[1]->to_int_list();
  const Span<Tensor* const> outs = args[3]->to_tensor_list();
  int dim = 0;
  if (!fast_case(self, split_sizes, args[2]->to_int(), outs, &dim)) {
    return native::split_with_sizes_copy_out(ctx, args);
  }
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < self.dim(); ++d) sizes[d] = self.size(d);
  for (size_t i = 0; i < outs.size(); ++i) {  // every resize before any copy
    sizes[dim] = split_sizes[i];
    if (resize_to(*outs[i], {sizes, static_cast<size_t>(self.dim())}) != Error::Ok) {
      return native::split_with_sizes_copy_out(ctx, args);  // reports which out
    }
  }
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    StridedView chunk = view_of(self);
    view_narrow(chunk, dim, start, split_sizes[i], 1);
    if (!copy_to_dense(chunk, outs[i]->mutable_data())) {
      return native::split_with_sizes_copy_out(ctx, args);
    }
    start += split_sizes[i];
  }
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
