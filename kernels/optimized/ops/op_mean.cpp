// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *,
//     ScalarType? dtype=None, Tensor(a!) out)
//
// Fast case: float32 self and out in the default dim order, dtype None or
// float32, and `dim` naming one block of adjacent dims (any order, negative
// allowed, no repeats) with a non-empty reduction: self viewed as
// [outer, reduced, inner]. inner == 1 (trailing dims: ViT/BERT feature
// means, global average pooling over H, W of NCHW) sums contiguous rows;
// inner > 1 (pooling over tokens, dim=1 of [B, T, C]) adds whole rows of
// `inner` floats into out. Both split across threads. Everything else (None
// or [] = all dims, other dtypes, split dim blocks, empty reductions) goes to
// the portable kernel.
#include <algorithm>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

struct MeanShape {
  int first = 0, last = -1;  // the reduced block [first, last]
  int64_t outer = 1, reduced = 1, inner = 1;
};

// Fills `shape` when `dims` is one block of adjacent, distinct dims of `self`.
bool plan_block(const Tensor& self, Span<const int64_t> dims, MeanShape* shape) {
  const int rank = self.dim();
  if (dims.size() == 0 || rank == 0 || static_cast<int>(dims.size()) > rank) return false;
  bool seen[kTensorDimensionLimit] = {};
  int lo = rank, hi = -1;
  for (int64_t d : dims) {
    const int64_t n = d < 0 ? d + rank : d;
    if (n < 0 || n >= rank || seen[n]) return false;
    seen[n] = true;
    lo = std::min(lo, static_cast<int>(n));
    hi = std::max(hi, static_cast<int>(n));
  }
  if (hi - lo + 1 != static_cast<int>(dims.size())) return false;  // not adjacent
  shape->first = lo;
  shape->last = hi;
  for (int d = 0; d < rank; ++d) {
    (d < lo ? shape->outer : d <= hi ? shape->reduced : shape->inner) *= self.size(d);
  }
  return true;
}

}  // namespace

Error mean_out(KernelContext& ctx, Span<EValue*> args) {
  MeanShape shape;
  if (args.size() != 5 || !is_dense_float_arg(args[0]) || args[1]->tag() != Tag::IntList ||
      !args[2]->is_bool() || !(args[3]->is_none() || (args[3]->is_int() && args[3]->to_int() == static_cast<int64_t>(ScalarType::Float))) ||
      !is_dense_float_arg(args[4]) ||
      !plan_block(args[0]->to_tensor(), args[1]->to_int_list(), &shape) || shape.reduced == 0) {
    return native::mean_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[4]->to_tensor();
  const bool keepdim = args[2]->to_bool();
  int64_t sizes[kTensorDimensionLimit];
  size_t rank = 0;
  for (int d = 0; d < self.dim(); ++d) {
    if (d < shape.first || d > shape.last) sizes[rank++] = self.size(d);
    else if (keepdim) sizes[rank++] = 1;
  }
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, rank}));
  const float* x = self.data_as<float>();
  float* y = out.mutable_data_as<float>();
  const VecKernels& k = active_vec_kernels();
  const int64_t r = shape.reduced, inner = shape.inner;
  const float inv = static_cast<float>(1.0 / static_cast<double>(r));
  if (inner == 1) {
    parallel_for(0, shape.outer, rows_per_chunk(r, kElementGrain), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) y[o] = k.sum(x + o * r, r) * inv;
    });
    return Error::Ok;
  }
  // Output elements [b, e) cut into runs within one outer index; each run
  // accumulates `r` input rows, then is scaled by 1/r.
  const int64_t grain = std::max<int64_t>(8, kElementGrain / r);
  parallel_for(0, shape.outer * inner, grain, [&](int64_t b, int64_t e) {
    while (b < e) {
      const int64_t o = b / inner, c = b % inner, len = std::min(e - b, inner - c);
      const float* src = x + o * r * inner + c;
      float* dst = y + b;
      const float one = 1.0f;
      k.binary(BinaryOp::kMul, src, false, &one, true, 1.0f, dst, len);  // copy the first row
      for (int64_t i = 1; i < r; ++i) k.binary(BinaryOp::kAdd, dst, false, src + i * inner, false, 1.0f, dst, len);
      k.binary(BinaryOp::kMul, dst, false, &inv, true, 1.0f, dst, len);
      b += len;
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
