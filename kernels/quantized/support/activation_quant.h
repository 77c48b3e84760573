// torchedge/kernels/quantized/support/activation_quant.h
//
// Per-token int8 quantization of linear_8da4w's float activations, exactly
// as the eager reference (python/torchedge/quantization/int4_linear_ops.py,
// quantize_per_token_int8) computes it in float32:
//   lo = min(min(x), 0), hi = max(max(x), 0)
//   scale = max((hi - lo) / 255, float32 eps)
//   zp = clamp(-128 - round(lo / scale), -128, 127)
//   q  = clamp(round(x / scale) + zp, -128, 127)        (division, not 1/scale)
// so the integers the kernel multiplies are the reference's integers.
//
// Per-tensor int8 quantization of linear_dynamic_int8's float activations,
// exactly as eager's choose_qparams.tensor(x, -128, 127, float32 eps, int8)
// followed by quantize_per_tensor.tensor compute it (the parameters of
// support/per_tensor_qparams.h, then q = clamp(round(x * float(1.0 / scale))
// + zp, -128, 127), as op_quantize_per_tensor.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace quantized {

/// Quantizes x[0, k) (k >= 1) into q; writes the row's scale and zero
/// point, and the sum of q over every `group_size` block into group_sums
/// (k / group_size entries).
void quantize_row_int8_per_token(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* scale, int32_t* zero_point, int32_t* group_sums);

/// Quantizes the float32 rows x [m, k] (m, k >= 1, row-major) as one
/// tensor and writes q - zero_point as int16 into `shifted`
/// (int8_gemm_x_elements(m, k) elements, in the row-panel layout of
/// support/int8_gemm_f32.h, padding zeroed). Returns the scale (float32)
/// and the zero point. The AVX2 path splits min/max and the quantize loop
/// over the shared thread pool (chunks of >= 64K elements; same bits on any
/// thread count: min and max are exact, rows are independent).
void quantize_tensor_int8_shifted(const float* x, int64_t m, int64_t k, int16_t* shifted,
                                  float* scale, int32_t* zero_point);

/// The same quantization of x [m, k] (m, k >= 1) as int8 rows themselves
/// (q = clamp(round(x * float(1.0 / scale)) + zp, -128, 127), the integers
/// quantize_tensor_int8_shifted shifts): row r at q + r * stride, zeros in
/// [k, stride). For kernels that multiply the raw int8 input (AArch64's sdot).
void quantize_tensor_int8(const float* x, int64_t m, int64_t k, int64_t stride, int8_t* q,
                          float* scale, int32_t* zero_point);

#if defined(TORCHEDGE_QUANTIZED_X86)
/// AVX2 parts of quantize_tensor_int8_shifted (support/x86/activation_quant_avx2.cpp):
/// min and max of `count` >= 1 values, or false if one is NaN or infinite;
/// and the quantize loop for finite inputs, writing rows' pairs (incl. the
/// odd-k pad) but not the padding rows of the last panel.
bool finite_min_max_avx2(const float* x, size_t count, float* min_out, float* max_out);
void quantize_panels_avx2(const float* x, int64_t m, int64_t k, float inv_scale,
                          int32_t zero_point, int16_t* shifted);
/// quantize_row_int8_per_token's loops for a finite row with k and
/// group_size multiples of 32, given the row's scale and zero point: the
/// scalar loops' float operations (division, ties-to-even round, + zp,
/// clamp) 8 at a time, so the same integers.
void quantize_row_avx2(const float* x, int64_t k, int64_t group_size, float scale, float zero_point,
                       int8_t* q, int32_t* group_sums);
#endif

#if defined(TORCHEDGE_QUANTIZED_ARM)
/// The NEON counterparts of finite_min_max_avx2 and quantize_row_avx2
/// (support/arm/activation_quant_neon.cpp; k and group_size multiples of
/// 16): the same integers.
bool finite_min_max_neon(const float* x, size_t count, float* min_out, float* max_out);
void quantize_row_neon(const float* x, int64_t k, int64_t group_size, float scale, float zero_point,
                       int8_t* q, int32_t* group_sums);
#endif

}  // namespace quantized
}  // namespace torchedge
