// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1,
//     Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32 through the SGEMM with beta * self (broadcast to
// [M, N] by strides) and alpha in its epilogue; self is not read when
// beta == 0 (as in ATen). Other dtypes and malformed calls: portable.
#include "kernels/optimized/ops/matmul_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error addmm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 6 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[2]->is_tensor() || !args[5]->is_tensor()) {
    return native::addmm_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  const Tensor& a = args[1]->to_tensor();
  const Tensor& b = args[2]->to_tensor();
  Tensor& out = args[5]->to_tensor();
  if (!all_float32({&self, &a, &b, &out}) || a.dim() != 2 || b.dim() != 2 ||
      a.size(1) != b.size(0) || self.dim() > 2) {
    return native::addmm_out(ctx, args);
  }
  const int64_t m = a.size(0), n = b.size(1);
  // self broadcasts to [m, n] when each of its trailing sizes is 1 or equal.
  const int rank = self.dim();
  const int64_t rows = rank == 2 ? self.size(0) : 1;
  const int64_t cols = rank >= 1 ? self.size(rank - 1) : 1;
  if ((rows != m && rows != 1) || (cols != n && cols != 1)) return native::addmm_out(ctx, args);
  Result<double> beta = scalar_arg(args, 3, "beta");
  Result<double> alpha = scalar_arg(args, 4, "alpha");
  if (!beta.ok() || !alpha.ok()) return native::addmm_out(ctx, args);
  const int64_t sizes[] = {m, n};
  TE_RETURN_IF_ERROR(resize_to(out, sizes));
  if (out.size(1) > 1 && out.stride(1) != 1) return native::addmm_out(ctx, args);
  SgemmProblem p;
  p.m = m, p.n = n, p.k = a.size(1);
  p.a = matrix_view(a, 0, 1);
  p.b = matrix_view(b, 0, 1);
  p.c = out.mutable_data_as<float>();
  p.ldc = out.stride(0);
  p.alpha = static_cast<float>(alpha.get());
  p.beta = static_cast<float>(beta.get());
  if (rows == 1 && cols == n && p.beta == 1.0f) {
    p.col_bias = self.data_as<float>();  // the common linear-layer bias
    p.beta = 0.0f;
  } else {
    p.addend = MatrixView{self.data_as<float>(), rows == 1 ? 0 : self.stride(0),
                          cols == 1 ? 0 : self.stride(rank - 1)};
  }
  return sgemm_or_fallback(ctx, args, p, &native::addmm_out);
}

}  // namespace optimized
}  // namespace torchedge
