// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32 input [*, K] whose leading dims merge into rows
// (contiguous), 2-d weight [N, K] read transposed by the packer, bias None
// or [N] fused as a column bias. Everything else (1-d weight, 0-d / [1]
// bias, other dtypes or layouts, malformed calls): portable. The exporter
// normally decomposes linear into addmm / mm; this covers programs that keep
// it.
#include "kernels/optimized/ops/matmul_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error linear_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[3]->is_tensor() || !(args[2]->is_tensor() || args[2]->is_none())) {
    return native::linear_out(ctx, args);
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  const Tensor* bias = args[2]->is_tensor() ? &args[2]->to_tensor() : nullptr;
  Tensor& out = args[3]->to_tensor();
  if (!all_float32({&x, &w, bias, &out}) || x.dim() < 1 || w.dim() != 2 ||
      x.size(x.dim() - 1) != w.size(1) || !x.is_contiguous() ||
      (bias != nullptr && (bias->dim() != 1 || bias->size(0) != w.size(0)))) {
    return native::linear_out(ctx, args);
  }
  const int64_t k = w.size(1), n = w.size(0);
  TE_ASSIGN_OR_RETURN(const int64_t m, resize_linear_output(x, n, out));
  if (!out.is_contiguous()) return native::linear_out(ctx, args);
  SgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a = MatrixView{x.data_as<float>(), k, 1};
  p.b = MatrixView{w.data_as<float>(), w.stride(1), w.stride(0)};  // B = weight^T
  p.c = out.mutable_data_as<float>();
  p.ldc = n;
  if (bias != nullptr) p.col_bias = bias->data_as<float>();
  return sgemm_or_fallback(ctx, args, p, &native::linear_out);
}

}  // namespace optimized
}  // namespace torchedge
