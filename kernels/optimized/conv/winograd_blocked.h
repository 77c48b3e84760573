// torchedge/kernels/optimized/conv/winograd_blocked.h
//
// Float32 3x3 stride-1 convolutions on channel-blocked activations (NCHW16c)
// by Winograd's F(2x2, 3x3), the filters transformed ahead of time
// (torchedge::conv2d_winograd_blocked; python/torchedge/passes/
// conv2d_winograd_blocked_op.py is the definition):
//
//   input    [N, Cin / 16, H, W, 16]
//   residual [N, Cout / 16, OH, OW, 16]       OH = H + 2 pad_h - 2
//   output   [N, Cout / 16, OH, OW, 16]       OW = W + 2 pad_w - 2
//   u        [16, ceil(Cout / 64), Cin / 16, 16 ci, 64 co]   U = G g G^T
//
// Every 2x2 output tile is A^T [U . (B^T d B)] A of its 4x4 input tile d:
// 4 multiply-adds per output instead of 9. In the blocked layout a vector
// holds 16 channels of one pixel, so both transforms are plain 16-wide
// additions of whole pixels (the NCHW kernel, conv/winograd.h, has to
// deinterleave tiles out of rows), and the 16 products U[xi] V[xi] are 1x1
// convolutions over "pixels" that are tiles: conv2d_blocked's own
// micro-kernel (conv2d_blocked_tile_<isa>.h) computes them, 6 tiles x 64
// output channels per call.
//
// Per image, bands of tiles: the band's input transform V [16][Cin/16]
// [tiles][16] (zeros outside the input), then per group of 64 output
// channels the 16 GEMMs into M [16][4][tiles][16] and the output transform
// A^T M A with bias, residual and clamp, ((sum + bias) + residual) then
// min(max, max(min, v)), NaN kept. Bands are sized so V and one group's M
// stay in L2; threads take (image, band) units, or share a band's groups
// when there are too few bands.
//
// Returns NotSupported (output partly written) when the transformed input
// holds an infinity or NaN: the transforms would spread it to outputs the
// direct sums keep finite (inf - inf); also where no SIMD build applies (an
// x86 CPU below AVX2, an ARM one without NEON, another architecture). MemoryAllocationFailed (output
// untouched) when ctx's temp allocator cannot hold the bands' scratch. The
// caller then computes the convolution another way (the portable kernel).
#pragma once

#include "kernels/optimized/conv/conv2d.h"
#include "runtime/core/error.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

constexpr int64_t kWinogradPoints = 16;  // the 4x4 transform of F(2x2, 3x3)

// s: 3x3 filters, strides and dilations 1, one group, in_channels and
// out_channels multiples of 16 (checked by the caller).
Error conv2d_winograd_blocked(KernelContext& ctx, const Conv2dShape& s, const float* x,
                              const float* u, const float* bias, const float* residual, float* y,
                              const Conv2dClamp& clamp = {});

namespace detail {
Error conv2d_winograd_blocked_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                     const float* u, const float* bias, const float* residual,
                                     float* y, const Conv2dClamp& clamp);
Error conv2d_winograd_blocked_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                   const float* u, const float* bias, const float* residual,
                                   float* y, const Conv2dClamp& clamp);
// AArch64 builds only (blocked_conv_neon.cpp).
Error conv2d_winograd_blocked_neon(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                   const float* u, const float* bias, const float* residual,
                                   float* y, const Conv2dClamp& clamp);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
