// torchedge/kernels/cortex_m/support/int8_depthwise_dsp.h
//
// torchedge::depthwise_conv2d_int8 for Cortex-M: the problem prepared by
// kernels/quantized (prepare_int8_depthwise), computed per channel plane:
// the plane is copied once into scratch as int16 (x - zx) inside a zero
// border of the padding, so every output pixel sums its taps at fixed
// offsets without bounds checks, divisions (the M33 has no 64-bit divide,
// which the quantized library's scalar loop calls per tap) or 64-bit
// indices; 3x3 windows (dilation 1) take two taps per SMLAD from adjacent
// int16 activations; then requantize()'s formula inlined (requantize_inline.h): bit
// for bit the quantized library's output. Scratch: the padded plane and
// the taps' offsets and weights (int8_depthwise_dsp_scratch_bytes).
//
// In place: p.out may be p.input itself when the output plane has the input
// plane's size (the memory planner's rule, python/torchedge/memory/
// execution_plan.py): each plane is copied into scratch before its output
// plane, which lands on exactly those bytes, is written.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace cortex_m {

size_t int8_depthwise_dsp_scratch_bytes(const quantized::Int8DepthwiseProblem& p);

/// `scratch`: int8_depthwise_dsp_scratch_bytes(p) bytes, 4-byte aligned.
void int8_depthwise_dsp(const quantized::Int8DepthwiseProblem& p, void* scratch);

}  // namespace cortex_m
}  // namespace torchedge
