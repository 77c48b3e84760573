// torchedge/kernels/cortex_m/support/int8_conv_dsp.h
//
// torchedge::conv2d_int8 for Cortex-M: the problem prepared by
// kernels/quantized (prepare_int8_conv: the same checks, the same panel
// layout of weights), computed pixel by pixel: the pixel's receptive field
// is gathered once as int16 (x - zx, 0 for padding and for k >= K, in
// (c, kh, kw) order, K rounded up to 4, each quad in the pair order of
// dsp_dot.h) and multiplied with the output channels' weight rows, a whole
// six-row panel per pass, by dot6_panel_pairs (SMLAD on the M33), then
// requantized by kernels/quantized's requantize() (support/int8_gemm.h):
// the int32 sums are exact in both, so the output is bit for bit
// int8_conv_scalar's. Scratch: 2 * Kq bytes (int8_conv_dsp_scratch_bytes): the
// per-channel factor in_scale * w_scale[c] is formed where it is used.
// No residual (conv2d_add_int8 stays on kernels/quantized).
//
// In place: p.out may be p.input itself (the memory planner's rule,
// python/torchedge/memory/execution_plan.py) when int8_conv_dsp_in_place_ok:
// a 1x1, stride-1, unpadded convolution with as many output as input
// channels per group. Each pixel's field (that pixel of every input plane of
// the group) is gathered into scratch before that pixel's outputs are
// written, and those outputs land on exactly the bytes just gathered.
#pragma once

#include <cstddef>

#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace cortex_m {

size_t int8_conv_dsp_scratch_bytes(const quantized::Int8ConvProblem& p);

/// Whether int8_conv_dsp(p) may write p.out over p.input (see above).
bool int8_conv_dsp_in_place_ok(const quantized::Int8ConvProblem& p);

/// Computes `p` (p.residual must be null); `scratch`: the bytes above,
/// 4-byte aligned.
void int8_conv_dsp(const quantized::Int8ConvProblem& p, int16_t* scratch);

}  // namespace cortex_m
}  // namespace torchedge
