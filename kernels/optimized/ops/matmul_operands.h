// torchedge/kernels/optimized/ops/matmul_operands.h
//
// What the optimized matrix-product kernels (mm, addmm, bmm, linear,
// linear_prepacked) share:
// the fast-path test and the call into the SGEMM with its fallback.
//
// A kernel takes the fast path when every tensor is float32 and the output
// rows have unit column stride (any dim order of the inputs is read through
// strides by the packers). Otherwise, and when the temp allocator has no
// room for the SGEMM's packing scratch, it returns the portable kernel's
// result, so every case the portable library accepts still works.
#pragma once

#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"
#include <initializer_list>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace optimized {

/// Whether every non-null tensor in `tensors` is float32.
inline bool all_float32(std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    if (t != nullptr && t->dtype() != ScalarType::Float) return false;
  }
  return true;
}

/// The strided view of dims (d0, d1) of `t` (offset `offset` elements).
inline MatrixView matrix_view(const Tensor& t, int d0, int d1, int64_t offset = 0) {
  return MatrixView{t.data_as<float>() + offset, t.stride(d0), t.stride(d1)};
}

/// Runs `p`; on MemoryAllocationFailed runs `fallback(ctx, args)` instead
/// (p.c is untouched then). Other errors are returned.
inline Error sgemm_or_fallback(KernelContext& ctx, Span<EValue*> args, const SgemmProblem& p,
                               KernelFunction fallback) {
  const Error err = sgemm(ctx, p);
  if (err == Error::MemoryAllocationFailed) return fallback(ctx, args);
  return err;
}

/// Resizes `out` to x's sizes with the last one replaced by `n` (a linear
/// layer's output) and returns the row count M (the product of x's leading
/// sizes). x must have rank >= 1.
inline Result<int64_t> resize_linear_output(const Tensor& x, int64_t n, Tensor& out) {
  int64_t sizes[kTensorDimensionLimit];
  int64_t m = 1;
  for (int d = 0; d + 1 < x.dim(); ++d) {
    sizes[d] = x.size(d);
    m *= x.size(d);
  }
  sizes[x.dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, static_cast<size_t>(x.dim())}));
  return m;
}

}  // namespace optimized
}  // namespace torchedge
