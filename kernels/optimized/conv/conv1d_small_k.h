// torchedge/kernels/optimized/conv/conv1d_small_k.h
//
// A 1-d convolution whose dot products are short (K = Cin * kernel <= 16,
// one group: wav2vec2's stem, one channel, k10 s5, 512 output channels over
// 3199 positions) as a direct AVX-512 kernel. Such a layer does ~10 FMAs
// per output element, so it is bound by writing its output (6.5 MB for
// wav2vec2), and the SGEMM wrote it badly: its loop nest stores 12-row
// tiles down an MC block of 120 rows before moving right, 120 concurrent
// store streams of 128 bytes each (0.9 ms hot in conv_bench, eager 0.45).
// Here the K input rows of the im2col matrix are gathered once into temp
// memory ([K][OL], 128 KB for wav2vec2), then 4 output channels at a time
// run along the whole row, 64 positions x 4 channels in 16 zmm: 4 store
// streams, written in order. Sums run k = 0..K-1 from zero as FMAs, then
// the bias, then the clamp: the SGEMM's order (same bits as conv2d_im2col).
//
// The same tiles serve grouped stride-1 1-d convolutions with long kernels
// (wav2vec2's positional convolution: 256 channels in 16 groups, k128, pad
// 64, over 49 positions for 1 s of audio). Through the SGEMM each group was
// a 16 x 50 x 2048 product (a 12-row tile and a 4-row one, a 32-wide strip
// and a half-empty one) over an im2col panel gathered per group: 1.76 ms
// at 1 thread for 52 MFLOP. Here each input row is zero-padded once and
// row (ci, tap) of a group's im2col matrix is that padded row shifted by
// tap * dilation, read in place; (group, 4 output channels) pairs are
// split across threads.
#pragma once

#include "kernels/optimized/conv/conv2d.h"

namespace torchedge {
namespace optimized {
namespace detail {

static inline bool conv1d_small_k_applies(const Conv2dShape& s) {
  return s.in_h == 1 && s.kernel_h == 1 && s.out_h == 1 && s.pad_h == 0 && s.groups == 1 &&
         s.in_channels * s.kernel_w <= 16 && s.out_w >= 64;
}

static inline bool conv1d_grouped_applies(const Conv2dShape& s) {
  return s.in_h == 1 && s.kernel_h == 1 && s.out_h == 1 && s.pad_h == 0 && s.groups > 1 &&
         s.stride_w == 1 && s.in_channels % s.groups == 0 && s.out_channels % s.groups == 0;
}

// conv1d_small_k_applies(s) must hold and best_isa() be kAvx512.
// MemoryAllocationFailed (y untouched) when the temp allocator cannot hold
// the [K][OL] gathered rows.
Error conv1d_small_k_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, float* y,
                            const Conv2dClamp& clamp);

// conv1d_grouped_applies(s) must hold and best_isa() be kAvx512. Sums run
// k = 0..K-1 in one sequence of FMAs (the SGEMM adds K in blocks, so the
// last bits can differ from conv2d_im2col's). MemoryAllocationFailed (y untouched) when the temp
// allocator cannot hold the padded input rows (Cin x ~(OL + span) floats).
Error conv1d_grouped_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, float* y,
                            const Conv2dClamp& clamp);

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
