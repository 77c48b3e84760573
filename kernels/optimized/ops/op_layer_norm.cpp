// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//     Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//
// Fast case: float32 input, weight, bias and outputs in the default dim
// order, normalized_shape matching the trailing dims, at least one
// non-empty row: one vectorized row per normalized slice, rows split across
// threads. out1 (mean) and out2 (rstd) are shaped like input with the
// normalized dims set to 1, as the portable kernel does. Everything else
// (other dtypes, layouts, bad arguments) goes to the portable kernel.
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

// A present parameter must be a dense float32 tensor of exactly n elements
// (its shape is checked against normalized_shape by the portable kernel;
// here we only take the fast path when it equals normalized_shape).
bool is_fast_param(const EValue* v, Span<const int64_t> shape) {
  if (v->is_none()) return true;
  if (!is_dense_float_arg(v)) return false;
  const Tensor& t = v->to_tensor();
  if (t.dim() != static_cast<int>(shape.size())) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (t.size(static_cast<int>(i)) != shape[i]) return false;
  }
  return true;
}

}  // namespace

Error native_layer_norm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 8 || !is_dense_float_arg(args[0]) || !args[4]->is_double() ||
      !is_dense_float_arg(args[5]) || !is_dense_float_arg(args[6]) ||
      !is_dense_float_arg(args[7])) {
    return native::native_layer_norm_out(ctx, args);
  }
  Result<Span<const int64_t>> shape_arg = int_list_arg(args, 1, "normalized_shape");
  if (!shape_arg.ok()) return native::native_layer_norm_out(ctx, args);
  const Span<const int64_t> shape = shape_arg.get();
  const Tensor& x = args[0]->to_tensor();
  const int k = static_cast<int>(shape.size());
  bool fast = k >= 1 && k <= x.dim() && is_fast_param(args[2], shape) && is_fast_param(args[3], shape);
  int64_t n = 1;
  for (int i = 0; fast && i < k; ++i) {
    fast = x.size(x.dim() - k + i) == shape[i];
    n *= shape[i];
  }
  if (!fast || n == 0 || x.numel() == 0) return native::native_layer_norm_out(ctx, args);

  Tensor& out = args[5]->to_tensor();
  Tensor& mean = args[6]->to_tensor();
  Tensor& rstd = args[7]->to_tensor();
  TE_RETURN_IF_ERROR(resize_like(out, x));
  int64_t stat_sizes[kTensorDimensionLimit];
  for (int d = 0; d < x.dim(); ++d) stat_sizes[d] = d < x.dim() - k ? x.size(d) : 1;
  const Span<const int64_t> stats{stat_sizes, static_cast<size_t>(x.dim())};
  TE_RETURN_IF_ERROR(resize_to(mean, stats));
  TE_RETURN_IF_ERROR(resize_to(rstd, stats));

  const float* in = x.data_as<float>();
  const float* w = args[2]->is_none() ? nullptr : args[2]->to_tensor().data_as<float>();
  const float* b = args[3]->is_none() ? nullptr : args[3]->to_tensor().data_as<float>();
  const double eps = args[4]->to_double();
  float* y = out.mutable_data_as<float>();
  float* mu = mean.mutable_data_as<float>();
  float* rs = rstd.mutable_data_as<float>();
  const auto row_fn = active_vec_kernels().layer_norm_row;
  const int64_t rows = static_cast<int64_t>(x.numel()) / n;
  parallel_for(0, rows, rows_per_chunk(n, kElementGrain), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) row_fn(in + r * n, w, b, eps, n, y + r * n, mu + r, rs + r);
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
