// torchedge/kernels/optimized/conv/max_pool2d.h
//
// Float32 and int8 2-D max pooling with indices over contiguous [planes, H, W]
// (NCHW with N * C planes), no dilation, for the optimized
// max_pool2d_with_indices kernel (ResNet's 3x3 / 2 stem pool). Semantics
// are the portable kernel's (ATen's): indices are h * W + w in the input
// plane, NaN wins (the last NaN's position is kept), ties keep the first
// position, windows are clipped to the input (padding never wins; a window
// of only -inf points at its first in-bounds element).
//
// Outputs whose window columns lie inside the input run 8 at a time (AVX2,
// conv/max_pool2d_avx2.cpp, when best_isa() allows; window rows clipped to
// the input, so the top and bottom rows too: the window's first in-bounds
// element seeds the max, every later one replaces it where it is greater or
// NaN, which is the scalar rule lane by lane; a row's last vector ends at
// its last such column, recomputing some of the previous one's); the
// left/right border ones, and all of them on the scalar ISA, run the
// portable loop.
// On AArch64 (NEON, conv/max_pool2d_neon.cpp) the int8 values-only pool
// (torchedge::max_pool2d, what static int8 programs call) runs the same
// interior columns 16 at a time with byte maxima; the rest as above.
// Threads take whole planes. No scratch.
#pragma once

#include <cstdint>

namespace torchedge {
namespace optimized {

struct Pool2dShape {
  int64_t planes, in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
};

/// indices: null computes the values only (torchedge::max_pool2d), the
/// same bits as with them.
void max_pool2d_with_indices_f32(const Pool2dShape& s, const float* x, float* y, int64_t* indices);

/// The same on int8 (static int8 programs pool their int8 tensors directly:
/// python/torchedge/quantization/static_int8_fusion.py); the window max
/// starts at -128 instead of -inf.
void max_pool2d_with_indices_i8(const Pool2dShape& s, const int8_t* x, int8_t* y,
                                int64_t* indices);

namespace detail {
// Output row `oh` of one plane, columns [ow_begin, ow_end) whose window
// columns are all inside the input, window rows [i_begin, i_end) (those
// inside it, i_begin < i_end): computes them all when there are at least 8
// and returns ow_end, else computes none and returns ow_begin. T: float or
// int8_t. i_row null: values only.
template <typename T>
int64_t max_pool2d_row_avx2(const Pool2dShape& s, const T* plane, int64_t oh, int64_t i_begin,
                            int64_t i_end, int64_t ow_begin, int64_t ow_end, T* y_row,
                            int64_t* i_row);

// The int8 values-only interior row on NEON (AArch64 only): as above,
// computing all of [ow_begin, ow_end) when there are at least 16 and the
// stride along the width is 1 or 2, else none; returns where the caller's
// scalar loop goes on (ow_end, ow_begin, or earlier where a step's reads
// would pass the plane's end).
int64_t max_pool2d_row_i8_neon(const Pool2dShape& s, const int8_t* plane, int64_t oh,
                               int64_t i_begin, int64_t i_end, int64_t ow_begin, int64_t ow_end,
                               int8_t* y_row);
// The same row's outputs [0, 16) when its first col_lo (1..16) outputs'
// windows start in the left padding and the rest up to 15 are interior
// (col_hi >= 16): pad_w <= 16, kernel_w <= 3, kernel_h <= 8, stride_w 1 or
// 2. Returns 16 when computed, else 0 (nothing written).
int64_t max_pool2d_left_i8_neon(const Pool2dShape& s, const int8_t* plane, int64_t oh,
                                int64_t i_begin, int64_t i_end, int64_t col_lo, int64_t col_hi,
                                int8_t* y_row);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
