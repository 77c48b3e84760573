// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32 through the batched SGEMM (threads take whole batch
// items when there are enough, e.g. attention heads; any input strides).
// Other dtypes and malformed calls: portable.
#include "kernels/optimized/ops/matmul_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error bmm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 3 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[2]->is_tensor()) {
    return native::bmm_out(ctx, args);
  }
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  if (!all_float32({&a, &b, &out}) || a.dim() != 3 || b.dim() != 3 || a.size(0) != b.size(0) ||
      a.size(2) != b.size(1)) {
    return native::bmm_out(ctx, args);
  }
  const int64_t sizes[] = {a.size(0), a.size(1), b.size(2)};
  TE_RETURN_IF_ERROR(resize_to(out, sizes));
  if (out.size(2) > 1 && out.stride(2) != 1) return native::bmm_out(ctx, args);
  SgemmProblem p;
  p.batch = a.size(0);
  p.m = a.size(1), p.n = b.size(2), p.k = a.size(2);
  p.a = matrix_view(a, 1, 2);
  p.b = matrix_view(b, 1, 2);
  p.c = out.mutable_data_as<float>();
  p.ldc = out.stride(1);
  p.batch_stride_a = a.stride(0);
  p.batch_stride_b = b.stride(0);
  p.batch_stride_c = out.stride(0);
  return sgemm_or_fallback(ctx, args, p, &native::bmm_out);
}

}  // namespace optimized
}  // namespace torchedge
