#include "kernels/quantized/support/activation_quant.h"

#include <algorithm>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/minmax.h"
#include "kernels/quantized/support/per_tensor_qparams.h"
#include "kernels/quantized/support/per_tensor_simd.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {

void quantize_row_int8_per_token(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* scale_out, int32_t* zero_point_out, int32_t* group_sums) {
  constexpr float kEps = 1.1920928955078125e-07f;  // torch.finfo(torch.float32).eps
  float lo = 0.0f, hi = 0.0f;
  bool simd = false;  // finite input on an AVX2 / NEON CPU: the vector loops
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (k % 32 == 0 && group_size % 32 == 0 && quant_isa() != QuantIsa::kScalar) {
    simd = finite_min_max_avx2(x, static_cast<size_t>(k), &lo, &hi);
  }
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  if (k % 16 == 0 && group_size % 16 == 0 &&
      optimized::best_arm_isa() >= optimized::ArmIsa::kNeon) {
    simd = finite_min_max_neon(x, static_cast<size_t>(k), &lo, &hi);
  }
#endif
  if (!simd) row_min_max(x, static_cast<size_t>(k), &lo, &hi);
  lo = min_nan(lo, 0.0f);
  hi = max_nan(hi, 0.0f);
  const float scale = max_nan((hi - lo) / 255.0f, kEps);
  const float zp = clamp_nan(-128.0f - round_half_even(lo / scale), -128.0f, 127.0f);
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (simd) quantize_row_avx2(x, k, group_size, scale, zp, q, group_sums);
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  if (simd) quantize_row_neon(x, k, group_size, scale, zp, q, group_sums);
#endif
  if (!simd) {
    for (int64_t i = 0; i < k; ++i) {
      q[i] = to_quant<int8_t>(clamp_nan(round_half_even(x[i] / scale) + zp, -128.0f, 127.0f));
    }
    for (int64_t g0 = 0, gi = 0; g0 < k; g0 += group_size, ++gi) {
      int32_t sum = 0;
      for (int64_t i = g0; i < g0 + group_size; ++i) sum += q[i];
      group_sums[gi] = sum;
    }
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

#if defined(TORCHEDGE_QUANTIZED_X86)
// Work below this many elements stays on the calling thread: handing out a
// task costs more than it saves, and every parallel_for is a wait for all
// threads (on a loaded machine, for a descheduled one): of a BERT layer
// only the FFN's second input (128 x 1536) is split.
constexpr int64_t kParallelElements = 1 << 16;
constexpr int64_t kMaxChunks = 16;

// finite_min_max_avx2 over up to num_threads() chunks (min and max are exact,
// so the combination is the single-pass result); false if any chunk holds a
// NaN or an infinity.
bool parallel_finite_min_max(const float* x, size_t count, float* lo, float* hi) {
  const int64_t chunks = std::max<int64_t>(
      1, std::min<int64_t>({kMaxChunks, static_cast<int64_t>(num_threads()),
                            static_cast<int64_t>(count) / kParallelElements}));
  if (chunks == 1) return finite_min_max_avx2(x, count, lo, hi);
  float los[kMaxChunks], his[kMaxChunks];
  bool finite[kMaxChunks];
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const size_t b = count * c / chunks, e = count * (c + 1) / chunks;
      finite[c] = finite_min_max_avx2(x + b, e - b, &los[c], &his[c]);
    }
  });
  for (int64_t c = 0; c < chunks; ++c) {
    if (!finite[c]) return false;
  }
  *lo = *std::min_element(los, los + chunks);
  *hi = *std::max_element(his, his + chunks);
  return true;
}

// quantize_panels_avx2 split by row panels (each panel's layout is its own).
void parallel_quantize_panels(const float* x, int64_t m, int64_t k, float inv, int32_t zp,
                              int16_t* shifted) {
  const int64_t panels = (m + kInt8GemmPanelRows - 1) / kInt8GemmPanelRows;
  const int64_t grain = std::max<int64_t>(1, kParallelElements / (kInt8GemmPanelRows * k));
  parallel_for(0, panels, grain, [&](int64_t begin, int64_t end) {
    const int64_t r0 = begin * kInt8GemmPanelRows;
    const int64_t rows = std::min(m, end * kInt8GemmPanelRows) - r0;
    quantize_panels_avx2(x + r0 * k, rows, k, inv, zp, shifted + int8_gemm_x_index(r0, 0, k));
  });
}
#endif

// choose_qparams.tensor's scale and zero point for count values of x
// (min / max with AVX2 where it has them, split over the pool); simd:
// whether they were all finite on an AVX2 CPU (the vector quantize loop).
struct TensorQParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
  bool simd = false;
};

TensorQParams tensor_qparams(const float* x, size_t count) {
  constexpr double kEps = 1.1920928955078125e-07;  // the dynamic flow's eps (float32 eps)
  float lo = 0.0f, hi = 0.0f;
  TensorQParams t;
  bool found = false;  // min and max of finite values by the vector loop
#if defined(TORCHEDGE_QUANTIZED_X86)
  t.simd = quant_isa() != QuantIsa::kScalar && parallel_finite_min_max(x, count, &lo, &hi);
  found = t.simd;
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  found = optimized::best_arm_isa() >= optimized::ArmIsa::kNeon &&
          finite_min_max_neon(x, count, &lo, &hi);
#endif
  if (!found) row_min_max(x, count, &lo, &hi);
  per_tensor_qparams_from_min_max<float>(lo, hi, -128, 127, kEps, &t.scale, &t.zero_point);
  return t;
}

// quantize_per_tensor.tensor reads the scale back as a double (exact) and
// multiplies by float(1.0 / scale).
QuantizeParams<float> quantize_params(const TensorQParams& t) {
  const float inv = static_cast<float>(1.0 / static_cast<double>(t.scale));
  return QuantizeParams<float>{inv, static_cast<float>(t.zero_point), -128.0f, 127.0f};
}

}  // namespace

void quantize_tensor_int8_shifted(const float* x, int64_t m, int64_t k, int16_t* shifted,
                                  float* scale_out, int32_t* zero_point_out) {
  const TensorQParams t = tensor_qparams(x, static_cast<size_t>(m * k));
  const QuantizeParams<float> p = quantize_params(t);
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (t.simd) parallel_quantize_panels(x, m, k, p.inv_scale, t.zero_point, shifted);
#endif
  if (!t.simd) quantize_panels_scalar(x, m, k, p, t.zero_point, shifted);
  // The last panel's padding rows multiply as zeros.
  const int64_t rows = int8_gemm_x_elements(m, k) / int8_gemm_x_stride(k);
  for (int64_t r = m; r < rows; ++r) {
    for (int64_t i = 0; i < int8_gemm_x_stride(k); ++i) shifted[int8_gemm_x_index(r, i, k)] = 0;
  }
  *scale_out = t.scale;
  *zero_point_out = t.zero_point;
}

void quantize_tensor_int8(const float* x, int64_t m, int64_t k, int64_t stride, int8_t* q,
                          float* scale_out, int32_t* zero_point_out) {
  const TensorQParams t = tensor_qparams(x, static_cast<size_t>(m * k));
  const QuantizeParams<float> p = quantize_params(t);
  for (int64_t r = 0; r < m; ++r) {
    const float* row = x + r * k;
    int8_t* dst = q + r * stride;
    if (!quantize_per_tensor_simd(row, dst, static_cast<size_t>(k), p)) {
      for (int64_t i = 0; i < k; ++i) dst[i] = quantize_round_then_shift<int8_t>(row[i], p);
    }
    for (int64_t i = k; i < stride; ++i) dst[i] = 0;
  }
  *scale_out = t.scale;
  *zero_point_out = t.zero_point;
}

}  // namespace quantized
}  // namespace torchedge
