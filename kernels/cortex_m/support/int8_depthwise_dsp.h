// torchedge/kernels/cortex_m/support/int8_depthwise_dsp.h
//
// torchedge::depthwise_conv2d_int8 for Cortex-M: the problem prepared by
// kernels/quantized (prepare_int8_depthwise), computed per channel plane
// and output row, tap by tap over the output columns whose input lies
// inside the row (ranges found without division: the M33 has no 64-bit
// divide, which the quantized library's scalar loop calls per tap), with
// 32-bit indices and int32 sums, then requantize() of support/int8_gemm.h
// (the formula the quantized library's epilogue inlines): bit for bit its
// output. Scratch: 4 * out_width bytes (the row's sums).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace cortex_m {

inline size_t int8_depthwise_dsp_scratch_bytes(const quantized::Int8DepthwiseProblem& p) {
  return static_cast<size_t>(p.out_width) * sizeof(int32_t);
}

void int8_depthwise_dsp(const quantized::Int8DepthwiseProblem& p, int32_t* row_sums);

}  // namespace cortex_m
}  // namespace torchedge
