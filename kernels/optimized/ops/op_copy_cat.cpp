// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//
// Fast case: every input of out's dtype, in the default dim order, of out's
// rank (>= 1, no legacy 1-d empty tensors) and agreeing on every dim but
// `dim`; out in the default dim order. Viewed as [outer, size(dim) * inner],
// each output row is the inputs' rows side by side: one memcpy per input
// per row (input by input), rows split across threads for large outputs. Everything else
// (dtype conversion, other layouts, bad arguments) goes to the portable
// kernel.
#include "kernels/optimized/copy/dense_copy.h"
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"

namespace torchedge {
namespace optimized {
namespace {

// Checks the fast-case conditions and writes the result's sizes.
bool plan_cat(Span<Tensor* const> tensors, const Tensor& out, int64_t dim_arg, int* dim,
              int64_t* sizes) {
  if (tensors.empty() || !out.is_contiguous()) return false;
  const Tensor& ref = *tensors[0];
  const int rank = ref.dim();
  if (rank == 0 || out.dim() != rank || !wrap_dim(dim_arg, rank, dim)) return false;
  for (int d = 0; d < rank; ++d) sizes[d] = ref.size(d);
  sizes[*dim] = 0;
  for (Tensor* const t : tensors) {
    if (t == nullptr || t->dim() != rank || t->dtype() != out.dtype() || !t->is_contiguous()) {
      return false;  // includes the legacy [0] tensors (rank mismatch or rank 1 handled below)
    }
    if (rank == 1 && t->size(0) == 0) return false;  // legacy empty: portable skips it
    for (int d = 0; d < rank; ++d) {
      if (d != *dim && t->size(d) != ref.size(d)) return false;
    }
    sizes[*dim] += t->size(*dim);
  }
  return true;
}

}  // namespace

Error cat_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 3 || !is_tensor_list_at(args, 0) || !is_int_at(args, 1) ||
      !is_tensor_at(args, 2)) {
    return native::cat_out(ctx, args);
  }
  const Span<Tensor* const> tensors = args[0]->to_tensor_list();
  Tensor& out = args[2]->to_tensor();
  int dim = 0;
  int64_t sizes[kTensorDimensionLimit];
  if (!plan_cat(tensors, out, args[1]->to_int(), &dim, sizes)) return native::cat_out(ctx, args);
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, static_cast<size_t>(out.dim())}));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= sizes[d];
  for (int d = dim + 1; d < out.dim(); ++d) inner *= sizes[d];
  const int64_t width = static_cast<int64_t>(element_size(out.dtype()));
  const int64_t row_bytes = sizes[dim] * inner * width;
  if (row_bytes == 0 || outer == 0) return Error::Ok;
  char* y = static_cast<char*>(out.mutable_data());
  const int64_t grain = row_bytes >= kCopyGrainBytes ? 1 : kCopyGrainBytes / row_bytes + 1;
  parallel_for(0, outer, grain, [&](int64_t begin, int64_t end) {
    // Input by input, so each input's sizes stay in registers across rows.
    int64_t column = 0;  // byte offset of this input's part of a row
    for (Tensor* const t : tensors) {
      const int64_t bytes = t->size(dim) * inner * width;
      const char* src = static_cast<const char*>(t->data());
      char* dst = y + column;
      for (int64_t o = begin; o < end && bytes > 0; ++o) {
        memcpy(dst + o * row_bytes, src + o * bytes, static_cast<size_t>(bytes));
      }
      column += bytes;
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
