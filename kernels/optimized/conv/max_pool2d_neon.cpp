// Max pooling, values only, on int8 planes with AArch64 NEON (built on
// aarch64 only): the columns of an output row whose windows do not touch
// the left/right padding, 16 outputs per step (conv/max_pool2d.h). Each
// window row takes one byte maximum (vmaxq_s8) per window column: stride 1
// reads the column with one 16-byte load, stride 2 two columns with one
// de-interleaving load (ld2 of 32 bytes: even and odd bytes). int8 has no
// NaN and equal values are the same bits, so the running maximum is the
// indexed rule's value exactly. ResNet-18's int8 stem pool (3x3 / 2) ran
// the portable per-output loop: 6.1M instructions per inference at
// 1x3x112x112, about 120 per output.
#include <arm_neon.h>

#include "kernels/optimized/conv/max_pool2d.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

// 16 outputs from `first` (the window's first input of the first output),
// window rows `rows` (each in_w apart), kKernelW > 0 known at compile time.
template <int kStride, int kKernelW>
inline int8x16_t window_max(const int8_t* first, int64_t rows, int64_t in_w, int64_t kernel_w) {
  const int64_t kw = kKernelW > 0 ? kKernelW : kernel_w;
  int8x16_t best = vdupq_n_s8(-128);
  for (int64_t i = 0; i < rows; ++i) {
    const int8_t* r = first + i * in_w;
    if constexpr (kStride == 1) {
      for (int64_t j = 0; j < kw; ++j) best = vmaxq_s8(best, vld1q_s8(r + j));
    } else {
      // Columns j and j + 1 of 16 windows: the even and odd bytes of 32.
      int64_t j = 0;
      for (; j + 1 < kw; j += 2) {
        const int8x16x2_t v = vld2q_s8(r + j);
        best = vmaxq_s8(best, vmaxq_s8(v.val[0], v.val[1]));
      }
      if (j < kw) best = vmaxq_s8(best, vld2q_s8(r + j).val[0]);
    }
  }
  return best;
}

template <int kStride, int kKernelW>
int64_t row(const Pool2dShape& s, const int8_t* plane, int64_t oh, int64_t i_begin, int64_t i_end,
            int64_t ow_begin, int64_t ow_end, int8_t* y_row) {
  const int64_t plane_size = s.in_h * s.in_w;
  const int64_t h0 = oh * s.stride_h - s.pad_h + i_begin;  // first window row inside
  const int64_t rows = i_end - i_begin;
  // Bytes a step reads past its first input in the last window row: the
  // last column's 16 bytes (stride 1) or the last pair's 32 (stride 2).
  const int64_t reach = kStride == 1 ? s.kernel_w - 1 + 16 : (s.kernel_w - 1) / 2 * 2 + 32;
  for (int64_t ow = ow_begin;; ow += 16) {
    if (ow + 16 > ow_end) ow = ow_end - 16;  // the last vector overlaps the one before
    const int64_t first = h0 * s.in_w + ow * kStride - s.pad_w;
    // Reads that would pass the plane's end: the caller's scalar loop
    // computes the rest of the row.
    if (first + (rows - 1) * s.in_w + reach > plane_size) return ow;
    vst1q_s8(y_row + ow,
             window_max<kStride, kKernelW>(plane + first, rows, s.in_w, s.kernel_w));
    if (ow + 16 >= ow_end) break;
  }
  return ow_end;
}

// Outputs [0, 16) of a row whose first columns' windows start in the left
// padding (max_pool2d_left_i8_neon's conditions): each window row's first
// 48 bytes copied behind pad_w bytes of -128 (values only: a padding
// position never exceeds an input one, and every window holds one), then
// the interior step on the copies. false (nothing written) where a copy
// would read past the plane.
template <int kStride, int kKernelW>
bool left_chunk(const Pool2dShape& s, const int8_t* plane, int64_t oh, int64_t i_begin,
                int64_t i_end, int8_t* y_row) {
  constexpr int64_t kRowBytes = 64;
  constexpr int64_t kMaxRows = 8;
  const int64_t rows = i_end - i_begin;
  const int64_t h0 = oh * s.stride_h - s.pad_h + i_begin;
  if (rows > kMaxRows || (h0 + rows - 1) * s.in_w + 48 > s.in_h * s.in_w) return false;
  alignas(16) int8_t copy[kMaxRows * kRowBytes];
  const int8x16_t lowest = vdupq_n_s8(-128);
  for (int64_t i = 0; i < rows; ++i) {
    int8_t* c = copy + i * kRowBytes;
    const int8_t* r = plane + (h0 + i) * s.in_w;
    vst1q_s8(c, lowest);
    vst1q_s8_x3(c + s.pad_w, vld1q_s8_x3(r));
  }
  vst1q_s8(y_row, window_max<kStride, kKernelW>(copy, rows, kRowBytes, s.kernel_w));
  return true;
}

}  // namespace

int64_t max_pool2d_row_i8_neon(const Pool2dShape& s, const int8_t* plane, int64_t oh,
                               int64_t i_begin, int64_t i_end, int64_t ow_begin, int64_t ow_end,
                               int8_t* y_row) {
  if (ow_end - ow_begin < 16) return ow_begin;
  if (s.stride_w == 2) {
    return s.kernel_w == 3 ? row<2, 3>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row)
                           : row<2, 0>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row);
  }
  if (s.stride_w == 1) {
    return s.kernel_w == 3 ? row<1, 3>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row)
                           : row<1, 0>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row);
  }
  return ow_begin;
}

int64_t max_pool2d_left_i8_neon(const Pool2dShape& s, const int8_t* plane, int64_t oh,
                                int64_t i_begin, int64_t i_end, int64_t col_lo, int64_t col_hi,
                                int8_t* y_row) {
  // Window reads stay inside the 48 copied bytes for strides 1 and 2 and
  // kernels up to 3 wide past the pair loads (32 + 2 bytes).
  if (col_lo < 1 || col_lo > 16 || col_hi < 16 || s.pad_w > 16 || s.kernel_w > 3) return 0;
  bool done = false;
  const bool three = s.kernel_w == 3;
  if (s.stride_w == 2) {
    done = three ? left_chunk<2, 3>(s, plane, oh, i_begin, i_end, y_row)
                 : left_chunk<2, 0>(s, plane, oh, i_begin, i_end, y_row);
  } else if (s.stride_w == 1) {
    done = three ? left_chunk<1, 3>(s, plane, oh, i_begin, i_end, y_row)
                 : left_chunk<1, 0>(s, plane, oh, i_begin, i_end, y_row);
  }
  return done ? 16 : 0;
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
