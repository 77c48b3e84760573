// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32 through the SGEMM (any input strides, no copies);
// everything else, and malformed calls, go to the portable kernel (which
// reports the error).
#include "kernels/optimized/ops/matmul_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error mm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 3 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[2]->is_tensor()) {
    return native::mm_out(ctx, args);
  }
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  if (!all_float32({&a, &b, &out}) || a.dim() != 2 || b.dim() != 2 || a.size(1) != b.size(0)) {
    return native::mm_out(ctx, args);
  }
  const int64_t sizes[] = {a.size(0), b.size(1)};
  TE_RETURN_IF_ERROR(resize_to(out, sizes));
  if (out.size(1) > 1 && out.stride(1) != 1) return native::mm_out(ctx, args);
  SgemmProblem p;
  p.m = a.size(0), p.n = b.size(1), p.k = a.size(1);
  p.a = matrix_view(a, 0, 1);
  p.b = matrix_view(b, 0, 1);
  p.c = out.mutable_data_as<float>();
  p.ldc = out.stride(0);
  return sgemm_or_fallback(ctx, args, p, &native::mm_out);
}

}  // namespace optimized
}  // namespace torchedge
