// torchedge/kernels/quantized/support/int8_conv_dot.h
//
// run_int8_conv's AArch64 dot-product path (support/int8_conv.h's sums and
// requantization, bit for bit): built on aarch64 only
// (support/arm/int8_conv_dotprod.cpp, compiled for armv8.2-a+dotprod) and
// entered when best_arm_isa() >= kDotProd; int8_conv.cpp falls back to the
// scalar loops below that.
//
// Per image: the input is copied once with zero-point padding (not for a
// 1x1 stride-1 unpadded convolution, which reads it in place); then tasks
// of (group, strip of 16 output pixels), threaded. A task gathers its
// strip's im2col columns into quads ([Kq][16 pixels][4 k]: sdot's operand
// layout; k past K is 0; from the padded copy one load per tap and run of
// the strip's pixels along a row, four taps interleaved by st4) and runs
// every 6-row weight panel of the group
// over them: 6 x 16 int32 sums in 24 accumulators, one sdot by element
// (vdotq_laneq_s32) per row x 4 pixels x quad, the input's raw int8 values
// multiplied, each row's sums started at -zx * sum_k w[m, k] (from the
// program's weight_sums when it has them, else summed from the panels, once
// per call with the per-row factors; exact in int32, as |x|, |w| <= 128 and
// K <= kMaxInt8ConvK). A plane's last strip of fewer than 16 pixels runs
// only its groups of 4 (4, 8 or 12 pixels); one of a single pixel runs the
// rows as lanes (2 sdot per quad against the pixel's broadcast quad). Then
// requantize() of support/int8_gemm.h, 16 pixels of a row at once: in integers
// (arm/requantize_neon.h's IntRequant: fcvtns, saturating narrows, int8
// clamp; the float formula's values wherever its y cannot be NaN) for
// panels whose rows all allow it, else in its float operations on 4 lanes
// (a NaN gives 0).
// The residual add (conv2d_add_int8) is the caller's, per finished plane.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace quantized {

/// Scratch run_int8_conv_dot needs at the current thread count.
size_t int8_conv_dot_scratch_bytes(const Int8ConvProblem& p);

/// Image n of p (every group and output channel), without the residual
/// add. scratch: int8_conv_dot_scratch_bytes(p) bytes, 64-byte aligned.
void run_int8_conv_dot(const Int8ConvProblem& p, int64_t n, void* scratch);

}  // namespace quantized
}  // namespace torchedge
