// torchedge/kernels/quantized/support/int8_gemm.h
//
// int8 GEMM with int32 accumulation and float requantization, the inner
// loops of torchedge::quantized_linear.out (one set per ISA).
//
//   acc[m, n] = sum_k x[m, k] * w[n, k]          x = xq - x_zp as int16, w int8 [N, K]
//   y         = float(acc) * (in_scale * w_scale[n]) + bias[n]
//   out[m, n] = clamp(round_half_even(y * inv_out_scale) + out_zp, qmin, qmax)
// inv_out_scale = float(1.0 / out_scale), as quantize_per_tensor computes it.
// Every function fills columns [n_begin, n_end) of all M rows.
#pragma once

#include <cstdint>

namespace torchedge {
namespace quantized {

struct Int8GemmProblem {
  const int16_t* x;        // [M, K]: activations minus their zero point (|x| <= 255)
  const int8_t* w;         // [N, K]
  const float* w_scales;   // [N]
  const float* bias;       // [N] or nullptr
  int64_t m, n, k;
  float in_scale;
  float inv_out_scale;
  float out_zero_point;
  float quant_min, quant_max;
  int8_t* out;             // [M, N]
};

void int8_gemm_requant_scalar(const Int8GemmProblem& p, int64_t n_begin, int64_t n_end);
#if defined(TORCHEDGE_QUANTIZED_X86)
void int8_gemm_requant_avx2(const Int8GemmProblem& p, int64_t n_begin, int64_t n_end);
#endif

/// Requantizes one accumulator to the int8 output (shared by every ISA so
/// they agree bit for bit on the same int32 sum; defined in a baseline
/// translation unit, so SIMD files never instantiate the inline rounding
/// helpers with their ISA flags).
int8_t requantize(int32_t acc, const Int8GemmProblem& p, int64_t n);

/// Chooses the ISA and splits N across the shared thread pool.
void run_int8_gemm_requant(const Int8GemmProblem& p);

}  // namespace quantized
}  // namespace torchedge
