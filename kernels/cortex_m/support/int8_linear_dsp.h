// torchedge/kernels/cortex_m/support/int8_linear_dsp.h
//
// torchedge::quantized_linear for Cortex-M: the problem prepared by
// kernels/quantized (prepare_quantized_linear: int16 activations minus
// their zero point, int8 weights [N, K] row-major), each output a
// dot_s16_s8 (SMLAD on the M33) requantized by kernels/quantized's
// requantize(): exact int32 sums, so bit for bit int8_gemm_requant_scalar.
#pragma once

#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace cortex_m {

void int8_linear_dsp(const quantized::Int8GemmProblem& p);

}  // namespace cortex_m
}  // namespace torchedge
