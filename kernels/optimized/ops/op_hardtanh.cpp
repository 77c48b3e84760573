// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32 with self and out in the same dim order (dense), so
// the clamp runs as one flat, vectorizable loop (ReLU6 in MobileNets);
// NaN propagates as in ATen. Threads take blocks of 16 Ki elements. Other
// dtypes, mixed layouts and malformed calls: portable.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

bool same_dim_order(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.dim_order()[d] != b.dim_order()[d]) return false;
  }
  return true;
}

// y = min(hi, max(lo, x)). SSE2 is part of x86-64, so this needs no
// dispatch; max/min return their second operand when one is NaN, which
// keeps a NaN input NaN.
void clamp(const float* x, float* y, int64_t n, float lo, float hi) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 vlo = _mm_set1_ps(lo), vhi = _mm_set1_ps(hi);
  for (; i + 8 <= n; i += 8) {
    const __m128 a = _mm_min_ps(vhi, _mm_max_ps(vlo, _mm_loadu_ps(x + i)));
    const __m128 b = _mm_min_ps(vhi, _mm_max_ps(vlo, _mm_loadu_ps(x + i + 4)));
    _mm_storeu_ps(y + i, a);
    _mm_storeu_ps(y + i + 4, b);
  }
#endif
  for (; i < n; ++i) {
    const float v = x[i];
    y[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}

}  // namespace

Error hardtanh_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !args[0]->is_tensor() || !args[3]->is_tensor()) {
    return native::hardtanh_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[3]->to_tensor();
  Result<double> lo = scalar_arg(args, 1, "min_val");
  Result<double> hi = scalar_arg(args, 2, "max_val");
  if (!lo.ok() || !hi.ok() || self.dtype() != ScalarType::Float ||
      out.dtype() != ScalarType::Float) {
    return native::hardtanh_out(ctx, args);
  }
  TE_RETURN_IF_ERROR(resize_like(out, self));
  if (!same_dim_order(self, out)) return native::hardtanh_out(ctx, args);
  const float min_v = static_cast<float>(lo.get()), max_v = static_cast<float>(hi.get());
  const float* x = self.data_as<float>();
  float* y = out.mutable_data_as<float>();
  parallel_for(0, static_cast<int64_t>(self.numel()), int64_t{1} << 14,
               [&](int64_t begin, int64_t end) {
                 clamp(x + begin, y + begin, end - begin, min_v, max_v);
               });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
