// torchedge/kernels/optimized/conv/blocked_layout.h
//
// The channel-blocked layout's changes for the optimized torchedge::
// to_blocked / from_blocked kernels (layout: conv/conv2d_blocked.h):
//
//   nchw_to_blocked  x [N, C, HW] -> y [N, C / 16, HW, 16]
//   blocked_to_nchw  y [N, C / 16, HW, 16] -> x [N, C, HW]
//
// both dense and not overlapping, C a multiple of 16; threaded over (image,
// channel block). The AVX2 build moves 8 x 8 tiles through one transpose
// (an element-wise copy strides one side by HW floats per element, ~4x
// slower on ResNet's 64 x 56 x 56 map); others copy element by element.
#pragma once

#include <cstdint>

namespace torchedge {
namespace optimized {

void nchw_to_blocked(const float* x, int64_t batch, int64_t channels, int64_t pixels, float* y);

/// One channel block, on the calling thread: x's 16 rows of `pixels` floats
/// (`pixels` apart) -> y [pixels, 16] (fused kernels that produce a block's
/// rows in a scratch buffer and store them blocked).
void channel_block_to_blocked(const float* x, int64_t pixels, float* y);
void blocked_to_nchw(const float* y, int64_t batch, int64_t channels, int64_t pixels, float* x);

namespace detail {
// One channel block of one image (the AVX2 unit, conv/blocked_layout_avx2.cpp).
void nchw_to_blocked_avx2(const float* x, int64_t pixels, float* y);
void blocked_to_nchw_avx2(const float* y, int64_t pixels, float* x);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
