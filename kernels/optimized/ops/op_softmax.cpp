// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
// torchedge::safe_softmax.out(Tensor self, int dim, *, Tensor(a!) out)
//   (softmax; a row that is all -inf gives zeros: kernels/portable/support/softmax.h)
//
// Fast case: float32, default dim order, softmax over the last dim (or a
// dim followed only by size-1 dims), half_to_float false: one vectorized
// row per lane, rows split across threads. Everything else goes to the
// portable kernel, which also reports bad arguments.
#include <cmath>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

// Whether reducing `dim` of `self` is a reduction over contiguous rows.
bool is_last_dim(const Tensor& self, int64_t dim_arg) {
  const int rank = self.dim();
  if (rank == 0) return false;  // rank 0: portable (a single 1.0 / 0.0)
  const int64_t dim = dim_arg < 0 ? dim_arg + rank : dim_arg;
  if (dim < 0 || dim >= rank) return false;
  for (int d = static_cast<int>(dim) + 1; d < rank; ++d) {
    if (self.size(d) != 1) return false;
  }
  return true;
}

// Whether x[0, n) is all -inf (a fully masked attention row). Rows that
// start with anything else (nearly all) cost one compare.
inline bool all_negative_infinity(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] != -INFINITY) return false;
  }
  return true;
}

enum class Kind { kSoftmax, kLogSoftmax, kSafeSoftmax };

template <Kind kKind>
Error softmax_rows(KernelContext& ctx, Span<EValue*> args) {
  constexpr bool kLog = kKind == Kind::kLogSoftmax, kSafe = kKind == Kind::kSafeSoftmax;
  const auto fallback = kSafe  ? native::safe_softmax_out
                        : kLog ? native::log_softmax_out
                               : native::softmax_out;
  const size_t out_index = kSafe ? 2 : 3;
  if (args.size() != out_index + 1 || !is_dense_float_arg(args[0]) || !args[1]->is_int() ||
      (!kSafe && (!args[2]->is_bool() || args[2]->to_bool())) ||
      !is_dense_float_arg(args[out_index])) {
    return fallback(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[out_index]->to_tensor();
  if (!is_last_dim(self, args[1]->to_int()) || self.numel() == 0) return fallback(ctx, args);
  TE_RETURN_IF_ERROR(resize_like(out, self));
  int64_t n = self.size(static_cast<int>(args[1]->to_int() < 0 ? args[1]->to_int() + self.dim()
                                                                 : args[1]->to_int()));
  const int64_t rows = static_cast<int64_t>(self.numel()) / n;
  const float* x = self.data_as<float>();
  float* y = out.mutable_data_as<float>();
  const VecKernels& k = active_vec_kernels();
  const auto row_fn = kLog ? k.log_softmax_row : k.softmax_row;
  parallel_for(0, rows, rows_per_chunk(n, kTranscendentalGrain), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      if (kSafe && x[r * n] == -INFINITY && all_negative_infinity(x + r * n, n)) {
        for (int64_t i = 0; i < n; ++i) y[r * n + i] = 0.0f;
        continue;
      }
      row_fn(x + r * n, y + r * n, n);
    }
  });
  return Error::Ok;
}

}  // namespace

Error softmax_out(KernelContext& ctx, Span<EValue*> args) {
  return softmax_rows<Kind::kSoftmax>(ctx, args);
}

Error log_softmax_out(KernelContext& ctx, Span<EValue*> args) {
  return softmax_rows<Kind::kLogSoftmax>(ctx, args);
}

Error safe_softmax_out(KernelContext& ctx, Span<EValue*> args) {
  return softmax_rows<Kind::kSafeSoftmax>(ctx, args);
}

}  // namespace optimized
}  // namespace torchedge
