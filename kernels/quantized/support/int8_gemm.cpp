#include "kernels/quantized/support/int8_gemm.h"

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/int4_dispatch.h"  // column_grain
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {

int8_t requantize(int32_t acc, const Int8GemmProblem& p, int64_t n) {
  float y = static_cast<float>(acc) * (p.in_scale * p.w_scales[n]);
  if (p.bias != nullptr) y += p.bias[n];
  const float r = round_half_even(y * p.inv_out_scale) + p.out_zero_point;
  return to_quant<int8_t>(clamp_nan(r, p.quant_min, p.quant_max));
}

void int8_gemm_requant_scalar(const Int8GemmProblem& p, int64_t n_begin, int64_t n_end) {
  for (int64_t n = n_begin; n < n_end; ++n) {
    const int8_t* w = p.w + n * p.k;
    for (int64_t m = 0; m < p.m; ++m) {
      const int16_t* x = p.x + m * p.k;
      int32_t acc = 0;
      for (int64_t i = 0; i < p.k; ++i) acc += static_cast<int32_t>(x[i]) * w[i];
      p.out[m * p.n + n] = requantize(acc, p, n);
    }
  }
}

void run_int8_gemm_requant(const Int8GemmProblem& p) {
  auto columns = int8_gemm_requant_scalar;
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) columns = int8_gemm_requant_avx2;
#endif
  parallel_for(0, p.n, column_grain(p.m, p.k),
               [&](int64_t begin, int64_t end) { columns(p, begin, end); });
}

}  // namespace quantized
}  // namespace torchedge
