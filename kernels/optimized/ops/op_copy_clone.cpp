// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
// aten::_to_copy.out(Tensor self, *, bool non_blocking=False,
//                    MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Fast case: out of self's dtype (for _to_copy: no conversion) in the
// default dim order, memory_format None or 0..3 (out's planned layout is the
// result's, as in the portable kernels). self may be in any dim order: a
// dense self is one memcpy, a channels-last one a tiled transpose
// (copy/dense_copy.h). Everything else goes to the portable kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {
namespace {

bool is_memory_format(const EValue* v) {
  return v->is_none() || (v->is_int() && v->to_int() >= 0 && v->to_int() <= 3);
}

// Copies self (args[0]) into out (args[out_index]) when both share a dtype
// and out is in the default dim order; otherwise runs `portable`.
Error same_dtype_copy(KernelContext& ctx, Span<EValue*> args, size_t out_index,
                      Error (*portable)(KernelContext&, Span<EValue*>)) {
  if (!is_tensor_at(args, 0) || !is_tensor_at(args, out_index)) return portable(ctx, args);
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[out_index]->to_tensor();
  if (self.dtype() != out.dtype() || out.dim() != self.dim() || !out.is_contiguous()) {
    return portable(ctx, args);
  }
  return copy_view_to_out(view_of(self), out);
}

}  // namespace

Error clone_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 3 || !is_memory_format(args[1])) return native::clone_out(ctx, args);
  return same_dtype_copy(ctx, args, 2, native::clone_out);
}

Error to_copy_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !args[1]->is_bool() || !is_memory_format(args[2])) {
    return native::_to_copy_out(ctx, args);
  }
  return same_dtype_copy(ctx, args, 3, native::_to_copy_out);
}

}  // namespace optimized
}  // namespace torchedge
