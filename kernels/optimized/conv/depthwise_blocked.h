// torchedge/kernels/optimized/conv/depthwise_blocked.h
//
// Float32 depthwise 2-D convolution (groups == channels, one filter per
// channel, no dilation) on channel-blocked activations (NCHW16c, the layout
// of torchedge::conv2d_depthwise_blocked; python/torchedge/passes/
// conv2d_blocked_op.py is the definition):
//
//   x     [N, CB, H, W, 16]      channel c of pixel (h, w) at [c / 16][h][w][c % 16]
//   w     [CB, KH, KW, 16]       channel c's tap (kh, kw) at [c / 16][kh][kw][c % 16]
//   bias  [CB * 16], or null
//   y     [N, CB, OH, OW, 16]    OH = (H + 2 pad_h - KH) / stride_h + 1, OW likewise
//
//   y[n, cb, oh, ow, l] = clamp(sum over (kh, kw) of x[n, cb, oh * sh - ph + kh,
//                         ow * sw - pw + kw, l] * w[cb, kh, kw, l] + bias[cb * 16 + l])
//
// Taps outside the input contribute nothing (zero padding). Each lane sums
// its taps in (kh, kw) order (one fused multiply-add each), then adds the
// bias, then clamps as min(max, max(min, v)), NaN kept (conv2d.h's
// Conv2dClamp). Any kernel size, stride and padding.
//
// Why: MobileNetV2's depthwise 3x3 layers (stride 1 and 2, maps 112x112 to
// 7x7, 32 to 960 channels) between blocked 1x1 convolutions. Each tap is
// one 16-wide multiply-add of a pixel's 16 channels by the tap's 16
// weights, so the input is read where it lies: no padded copy (border
// pixels take a checked path), no scratch, no layout change around the
// layer. The tiles keep up to 16 output pixels of one row in zmm
// registers (AVX2: 8, each in two ymm halves one after the other; NEON: 16,
// each in four q-register quarters) and, for
// 3- and 5-wide filters at stride 1 or 2, load each input pixel of a kernel
// row once for all the taps that read it (depthwise_blocked_driver.h).
// MobileNetV2's layers, 1 thread: 1.2-3x the NCHW depthwise loops
// (conv2d_depthwise; kernels/optimized/bench/conv_bench.cpp --filter dw).
//
// Threads take (image, channel block, band of output rows) units. The
// output is the same bits at any thread count.
//
// Returns NotSupported where no SIMD build applies (an x86 CPU below AVX2,
// an ARM one without NEON, another architecture, or TORCHEDGE_ISA=scalar): the op then runs the portable
// kernel. The caller checks the shape (out_h, out_w >= 1 as above, strides
// >= 1, paddings >= 0); y must not overlap x, w or bias.
#pragma once

#include <cstdint>

#include "kernels/optimized/conv/conv2d.h"
#include "runtime/core/error.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

struct DepthwiseBlockedShape {
  int64_t batch, blocks;  // N, CB (channels / 16)
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
};

// x, w, bias (or null) and y as in the file comment, dense.
Error conv2d_depthwise_blocked(const DepthwiseBlockedShape& s, const float* x, const float* w,
                               const float* bias, float* y, const Conv2dClamp& clamp = {});

// The NCHW depthwise convolution (conv2d.h's conv2d_depthwise contract, no
// dilation, channels a multiple of 16) run as to_blocked -> this kernel ->
// from_blocked in ctx's temp memory (input, output and the repacked
// filters). Why: conv2d_depthwise's per-plane loops are fast only for 3x3
// (the AVX2 plane3x3); MobileNetV3 / EfficientNet's 5x5 layers ran there at
// ~0.5 GMAC/s (576 @7 5x5: ~1 ms). NotSupported for other shapes or without
// SIMD (has_simd()), MemoryAllocationFailed when the temp memory is short (y untouched
// then: the caller runs its own loops).
Error conv2d_depthwise_through_blocked(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                       const float* w, const float* bias, float* y,
                                       const Conv2dClamp& clamp);

namespace detail {
Error conv2d_depthwise_blocked_avx512(const DepthwiseBlockedShape& s, const float* x,
                                      const float* w, const float* bias, float* y,
                                      const Conv2dClamp& clamp);
Error conv2d_depthwise_blocked_avx2(const DepthwiseBlockedShape& s, const float* x,
                                    const float* w, const float* bias, float* y,
                                    const Conv2dClamp& clamp);
// AArch64 builds only (blocked_conv_neon.cpp).
Error conv2d_depthwise_blocked_neon(const DepthwiseBlockedShape& s, const float* x,
                                    const float* w, const float* bias, float* y,
                                    const Conv2dClamp& clamp);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
