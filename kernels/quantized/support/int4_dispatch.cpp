#include "kernels/quantized/support/int4_dispatch.h"

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {

void run_int4_linear_f32(const FloatRows& x, const Int4Weight& w, const float* bias, float* out) {
  auto columns = int4_linear_f32_scalar;
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) columns = int4_linear_f32_avx2;
#endif
  parallel_for(0, w.n, column_grain(x.m, w.k),
               [&](int64_t begin, int64_t end) { columns(x, w, bias, out, begin, end); });
}

void run_int8_int4_linear(const Int8Rows& x, const Int4Weight& w, const float* bias, float* out) {
  auto columns = int8_int4_linear_scalar;
#if defined(TORCHEDGE_QUANTIZED_X86)
  switch (quant_isa()) {
    case QuantIsa::kAvx512Vnni: columns = int8_int4_linear_avx512vnni; break;
    case QuantIsa::kAvx2: columns = int8_int4_linear_avx2; break;
    case QuantIsa::kScalar: break;
  }
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) columns = int8_int4_linear_dotprod;
#endif
  parallel_for(0, w.n, column_grain(x.m, w.k),
               [&](int64_t begin, int64_t end) { columns(x, w, bias, out, begin, end); });
}

}  // namespace quantized
}  // namespace torchedge
