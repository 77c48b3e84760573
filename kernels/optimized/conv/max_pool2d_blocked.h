// torchedge/kernels/optimized/conv/max_pool2d_blocked.h
//
// Float32 2-D max pooling on the channel-blocked layout (NCHW16c,
// conv/conv2d_blocked.h) for the optimized torchedge::max_pool2d_blocked
// kernel: x is a dense [blocks, in_h, in_w, 16] (blocks = N * C / 16), y a
// dense [blocks, out_h, out_w, 16], not overlapping x. Semantics are the
// portable kernel's (torchedge::max_pool2d's, lane by lane): windows are
// clipped to the input, the max starts at -inf, and each tap replaces it
// where it is greater or NaN, so NaN wins (the last NaN's bits are kept)
// and ties keep the first value (-0 before 0 stays -0). Any window,
// stride, padding and dilation; the caller checks the arguments (ATen's
// output size).
//
// Threads take (block, output row) pairs. The AVX2 build (conv/
// max_pool2d_blocked_avx2.cpp, when best_isa() allows) keeps a pixel's 16
// channels in two 8-float registers; the scalar one runs the portable rule
// lane by lane. Both give the same bits. No scratch.
#pragma once

#include <cstdint>

namespace torchedge {
namespace optimized {

struct BlockedPool2dShape {
  int64_t blocks, in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};

void max_pool2d_blocked_f32(const BlockedPool2dShape& s, const float* x, float* y);

namespace detail {
// The taps of one window along one dim inside the input: [first, end) of
// the kernel's 0..kernel - 1 (first == end: none).
struct TapRange {
  int64_t first, end;
};

// Taps of the window starting at `start` (may be negative) with `kernel`
// taps `dilation` apart over an input of `size`.
inline TapRange window_taps(int64_t start, int64_t kernel, int64_t dilation, int64_t size) {
  int64_t first = start < 0 ? (-start + dilation - 1) / dilation : 0;
  int64_t end = start + (kernel - 1) * dilation < size ? kernel
                                                         : (size - start + dilation - 1) / dilation;
  if (end < first) end = first;
  return {first, end};
}

// Output row `oh` of one channel block (image: [in_h, in_w, 16], y_row:
// [out_w, 16]) whose window rows inside the input are `rows`.
void max_pool2d_blocked_row_avx2(const BlockedPool2dShape& s, const float* image, int64_t oh,
                                 TapRange rows, float* y_row);
/// The same on AArch64 NEON (blocked_conv_neon.cpp, aarch64 builds).
void max_pool2d_blocked_row_neon(const BlockedPool2dShape& s, const float* image, int64_t oh,
                                 TapRange rows, float* y_row);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
