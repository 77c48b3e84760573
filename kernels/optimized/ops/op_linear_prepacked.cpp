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
//
// torchedge::linear_prepacked_fused.out(..., Tensor? residual, bool gelu, *,
//     Tensor(a!) out): the same GEMM with a contiguous residual as the
// epilogue's addend (beta 1: ((sum + bias) + residual), as addmm then add)
// and the GELU applied to each tile as it is stored.
//
// On a CPU with AMX (cpu_features' amx_usable(); TORCHEDGE_ISA=avx512 or
// lower turns it off) calls of at least kSgemmAmxMinRows rows run
// gemm/sgemm_amx.h's float32-accurate tile GEMM instead, with the same
// epilogue.
#include "kernels/optimized/gemm/sgemm_amx.h"
#include "kernels/optimized/ops/matmul_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

namespace {

constexpr int64_t kStripWidth = 16;

// The GEMM of a well-formed call with contiguous input, output and residual
// (nullptr: none); false when the call is for the portable kernel.
bool prepacked_problem(Span<EValue*> args, size_t out_index, const Tensor* residual,
                       SgemmProblem* problem) {
  if (!args[0]->is_tensor() || !args[1]->is_tensor() ||
      !(args[2]->is_tensor() || args[2]->is_none()) || !args[3]->is_int() ||
      !args[out_index]->is_tensor()) {
    return false;
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  const Tensor* bias = args[2]->is_tensor() ? &args[2]->to_tensor() : nullptr;
  const int64_t n = args[3]->to_int();
  Tensor& out = args[out_index]->to_tensor();
  if (!all_float32({&x, &w, bias, &out, residual}) || x.dim() < 1 || !x.is_contiguous() ||
      n < 0 || w.dim() != 3 || w.size(0) != (n + kStripWidth - 1) / kStripWidth ||
      w.size(1) != x.size(-1) || w.size(2) != kStripWidth || !w.is_contiguous() ||
      (bias != nullptr && (bias->dim() != 1 || bias->size(0) != n))) {
    return false;
  }
  const int64_t k = x.size(-1);
  const Result<int64_t> m = resize_linear_output(x, n, out);
  if (!m.ok() || !out.is_contiguous()) return false;
  if (residual != nullptr && (residual->dim() < 1 || residual->size(-1) != n ||
                              static_cast<int64_t>(residual->numel()) != m.get() * n || !residual->is_contiguous())) {
    return false;
  }
  SgemmProblem& p = *problem;
  p.m = m.get(), p.n = n, p.k = k;
  p.a = MatrixView{x.data_as<float>(), k, 1};
  p.b_prepacked = w.data_as<float>();
  p.b_prepacked_nr = kStripWidth;
  p.c = out.mutable_data_as<float>();
  p.ldc = n;
  if (bias != nullptr) p.col_bias = bias->data_as<float>();
  if (residual != nullptr) {
    p.beta = 1.0f;
    p.addend = MatrixView{residual->data_as<float>(), n, 1};
  }
  return true;
}

// The AMX GEMM where it applies (Whisper-sized layers on a CPU with AMX),
// else, or when it declines (inf / NaN / subnormal operands, scratch), the SGEMM.
Error run(KernelContext& ctx, Span<EValue*> args, const SgemmProblem& p, KernelFunction fallback) {
#ifndef TORCHEDGE_NO_X86_SIMD
  if (sgemm_amx_applies(p) && sgemm_amx(ctx, p) == Error::Ok) return Error::Ok;
#endif
  return sgemm_or_fallback(ctx, args, p, fallback);
}

}  // namespace

Error linear_prepacked_out(KernelContext& ctx, Span<EValue*> args) {
  SgemmProblem p;
  if (args.size() != 5 || !prepacked_problem(args, 4, nullptr, &p)) {
    return native::linear_prepacked_out(ctx, args);
  }
  return run(ctx, args, p, &native::linear_prepacked_out);
}

Error linear_prepacked_fused_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 7 || !(args[4]->is_tensor() || args[4]->is_none()) || !args[5]->is_bool()) {
    return native::linear_prepacked_fused_out(ctx, args);
  }
  const Tensor* residual = args[4]->is_tensor() ? &args[4]->to_tensor() : nullptr;
  SgemmProblem p;
  if (!prepacked_problem(args, 6, residual, &p)) return native::linear_prepacked_fused_out(ctx, args);
  p.gelu = args[5]->to_bool();
  return run(ctx, args, p, &native::linear_prepacked_fused_out);
}

}  // namespace optimized
}  // namespace torchedge
