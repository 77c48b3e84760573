// torchedge::linear_prepacked.out(Tensor input, Tensor weight_packed, Tensor? bias,
//     int out_features, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: the SGEMM with B = weight_packed as b_prepacked (16-wide strips,
// the AVX2 and scalar micro-kernels' width), so a constant weight is not
// packed again on every call; bias fused as a column bias. Takes contiguous
// float32 input [*, K] (leading dims merged into rows) and a well-formed
// weight_packed; everything else, and every malformed call, goes to the
// portable kernel (kernels/portable/op_linear_prepacked.cpp, which states
// the layout and the errors).
#include "kernels/optimized/ops/matmul_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error linear_prepacked_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr int64_t kStripWidth = 16;
  if (args.size() != 5 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !(args[2]->is_tensor() || args[2]->is_none()) || !args[3]->is_int() ||
      !args[4]->is_tensor()) {
    return native::linear_prepacked_out(ctx, args);
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  const Tensor* bias = args[2]->is_tensor() ? &args[2]->to_tensor() : nullptr;
  const int64_t n = args[3]->to_int();
  Tensor& out = args[4]->to_tensor();
  if (!all_float32({&x, &w, bias, &out}) || x.dim() < 1 || !x.is_contiguous() || n < 0 ||
      w.dim() != 3 || w.size(0) != (n + kStripWidth - 1) / kStripWidth ||
      w.size(1) != x.size(-1) || w.size(2) != kStripWidth || !w.is_contiguous() ||
      (bias != nullptr && (bias->dim() != 1 || bias->size(0) != n))) {
    return native::linear_prepacked_out(ctx, args);
  }
  const int64_t k = x.size(-1);
  TE_ASSIGN_OR_RETURN(const int64_t m, resize_linear_output(x, n, out));
  if (!out.is_contiguous()) return native::linear_prepacked_out(ctx, args);
  SgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a = MatrixView{x.data_as<float>(), k, 1};
  p.b_prepacked = w.data_as<float>();
  p.b_prepacked_nr = kStripWidth;
  p.c = out.mutable_data_as<float>();
  p.ldc = n;
  if (bias != nullptr) p.col_bias = bias->data_as<float>();
  return sgemm_or_fallback(ctx, args, p, &native::linear_prepacked_out);
}

}  // namespace optimized
}  // namespace torchedge
