#include "kernels/quantized/support/activation_quant.h"

#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/minmax.h"
#include "kernels/quantized/support/per_tensor_qparams.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {

void quantize_row_int8_per_token(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* scale_out, int32_t* zero_point_out, int32_t* group_sums) {
  constexpr float kEps = 1.1920928955078125e-07f;  // torch.finfo(torch.float32).eps
  float lo = 0.0f, hi = 0.0f;
  row_min_max(x, static_cast<size_t>(k), &lo, &hi);
  lo = min_nan(lo, 0.0f);
  hi = max_nan(hi, 0.0f);
  const float scale = max_nan((hi - lo) / 255.0f, kEps);
  const float zp = clamp_nan(-128.0f - round_half_even(lo / scale), -128.0f, 127.0f);
  for (int64_t i = 0; i < k; ++i) {
    q[i] = to_quant<int8_t>(clamp_nan(round_half_even(x[i] / scale) + zp, -128.0f, 127.0f));
  }
  for (int64_t g0 = 0, gi = 0; g0 < k; g0 += group_size, ++gi) {
    int32_t sum = 0;
    for (int64_t i = g0; i < g0 + group_size; ++i) sum += q[i];
    group_sums[gi] = sum;
  }
  *scale_out = scale;
  // NaN input: scale is NaN (so is the output, as in eager); keep the zero
  // point in range so the integer corrections cannot overflow.
  const int32_t zp_int = to_quant<int32_t>(zp);
  *zero_point_out = zp_int < -128 ? -128 : (zp_int > 127 ? 127 : zp_int);
}

namespace {

void quantize_panels_scalar(const float* x, int64_t m, int64_t k, const QuantizeParams<float>& p,
                            int32_t zp, int16_t* shifted) {
  for (int64_t r = 0; r < m; ++r) {
    const float* row = x + r * k;
    for (int64_t i = 0; i < k; ++i) {
      shifted[int8_gemm_x_index(r, i, k)] =
          static_cast<int16_t>(quantize_round_then_shift<int8_t>(row[i], p) - zp);
    }
    if (k % 2 != 0) shifted[int8_gemm_x_index(r, k, k)] = 0;
  }
}

}  // namespace

void quantize_tensor_int8_shifted(const float* x, int64_t m, int64_t k, int16_t* shifted,
                                  float* scale_out, int32_t* zero_point_out) {
  constexpr double kEps = 1.1920928955078125e-07;  // the dynamic flow's eps (float32 eps)
  const size_t count = static_cast<size_t>(m * k);
  float lo = 0.0f, hi = 0.0f;
  bool simd = false;
#if defined(TORCHEDGE_QUANTIZED_X86)
  simd = quant_isa() != QuantIsa::kScalar && finite_min_max_avx2(x, count, &lo, &hi);
#endif
  if (!simd) row_min_max(x, count, &lo, &hi);
  float scale = 1.0f;
  int32_t zp = 0;
  per_tensor_qparams_from_min_max<float>(lo, hi, -128, 127, kEps, &scale, &zp);
  // quantize_per_tensor.tensor reads the scale back as a double (exact) and
  // multiplies by float(1.0 / scale).
  const float inv = static_cast<float>(1.0 / static_cast<double>(scale));
  const QuantizeParams<float> p{inv, static_cast<float>(zp), -128.0f, 127.0f};
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (simd) quantize_panels_avx2(x, m, k, inv, zp, shifted);
#endif
  if (!simd) quantize_panels_scalar(x, m, k, p, zp, shifted);
  // The last panel's padding rows multiply as zeros.
  const int64_t rows = int8_gemm_x_elements(m, k) / int8_gemm_x_stride(k);
  for (int64_t r = m; r < rows; ++r) {
    for (int64_t i = 0; i < int8_gemm_x_stride(k); ++i) shifted[int8_gemm_x_index(r, i, k)] = 0;
  }
  *scale_out = scale;
  *zero_point_out = zp;
}

}  // namespace quantized
}  // namespace torchedge
