// torchedge/kernels/quantized/support/arm/int8_conv_gather.h
//
// The im2col strips of the AArch64 sdot convolution (int8_conv_dotprod.cpp,
// support/int8_conv_dot.h): 16 output pixels' input values in sdot's
// operand order, from the input itself (1x1, stride 1, unpadded: 4 plane
// loads and an st4 per 4 channels; a plane's last strip by a load ending at
// its last pixel and a table look-up) or from the zero-point-padded copy
// (each tap's 16 values one load per run of the strip's pixels along a
// padded row, stride 2 a de-interleaving ld2, merged by the runs' lane
// masks, then 4 taps at a time interleaved by st4; other strides byte by
// byte). Built on aarch64 only, plain NEON; include from support/arm/ only.
#pragma once

#include <cstdint>

#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace quantized {

/// Output pixels per strip.
constexpr int64_t kInt8ConvGatherStrip = 16;

/// Strip [q0, q0 + count) (count <= 16) of group g's output plane, read
/// from `src` (one image's planes, int8_conv_padded_source or the input
/// itself when int8_conv_is_flat), into xs as [ceil(K / 4)][16 pixels][4 k]:
/// xs[(k / 4) * 64 + j * 4 + k % 4] = the input value of tap k (channel,
/// row, column order) for output pixel q0 + j; k past K is 0, and pixels
/// past `count` hold values the caller never stores (pixel q0's, or 0 on
/// the 1x1 path). xs: 64 * ceil(K / 4) bytes, 16-byte aligned.
void int8_conv_gather_strip(const Int8ConvProblem& p, const Int8ConvSource& src, int64_t g,
                            int64_t q0, int64_t count, int8_t* xs);

}  // namespace quantized
}  // namespace torchedge
