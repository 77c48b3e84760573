// aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
// aten::_unsafe_view.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
//
// Fast case: `size` valid for self's element count (at most one -1, no
// other negative, no -1 beside a zero-sized dim), out of self's dtype and
// rank len(size), in the default dim order. Element i of self in logical
// row-major order becomes element i of out, so a dense self is one memcpy
// (split across threads when large) and a self in another dim order a
// strided copy (copy/dense_copy.h). Everything else goes to the portable
// kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {
namespace {

// infer_view_sizes() (kernels/portable/support/view_shape.h) without the
// error messages: false where it fails.
bool view_sizes(Span<const int64_t> size, int64_t numel, int64_t* sizes) {
  if (size.size() > static_cast<size_t>(kTensorDimensionLimit)) return false;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer >= 0) return false;
      infer = static_cast<int>(i);
    } else if (size[i] < 0 || (size[i] != 0 && known > INT64_MAX / size[i])) {
      return false;  // negative, or the product overflows int64
    } else {
      known *= size[i];
      sizes[i] = size[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return false;
    sizes[infer] = numel / known;
    return true;
  }
  return known == numel;
}

Error reshape_copy(KernelContext& ctx, Span<EValue*> args,
                   Error (*portable)(KernelContext&, Span<EValue*>)) {
  if (args.size() != 3 || !is_tensor_at(args, 0) || !is_int_list_at(args, 1) ||
      !is_tensor_at(args, 2)) {
    return portable(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  const Span<const int64_t> size = args[1]->to_int_list();
  int64_t sizes[kTensorDimensionLimit];
  if (self.dtype() != out.dtype() || out.dim() != static_cast<int>(size.size()) ||
      !out.is_contiguous() || !view_sizes(size, numel_of(self), sizes)) {
    return portable(ctx, args);
  }
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, size.size()}));
  if (!copy_to_dense(view_of(self), out.mutable_data())) return portable(ctx, args);
  return Error::Ok;
}

}  // namespace

Error view_copy_out(KernelContext& ctx, Span<EValue*> args) {
  return reshape_copy(ctx, args, native::view_copy_out);
}

Error unsafe_view_out(KernelContext& ctx, Span<EValue*> args) {
  return reshape_copy(ctx, args, native::_unsafe_view_out);
}

}  // namespace optimized
}  // namespace torchedge
