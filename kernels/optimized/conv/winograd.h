// torchedge/kernels/optimized/conv/winograd.h
//
// 3x3, stride-1 convolutions by Winograd's minimal filtering F(2x2, 3x3)
// (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks",
// 2016): every 2x2 output tile is A^T [ (G g G^T) . (B^T d B) ] A for its
// 4x4 input tile d, so the 3x3 filter's 9 multiply-adds per output become
// 4 (2.25x fewer), spent in 16 GEMMs, one per point xi of the 4x4 transform:
//
//   U[xi] = (G g G^T)[xi]   [Cout x Cin]   the filters, once per call
//   V[xi] = (B^T d B)[xi]   [Cin x tiles]  the input tiles
//   M[xi] = U[xi] V[xi]     [Cout x tiles] the optimized SGEMM, batch of 16
//   y     = A^T M A (+ bias, + residual, clamp)   2x2 outputs per tile
//
// The transforms use only additions, subtractions and halvings, so the
// results stay within float32 rounding of the direct convolution (the
// tests compare with a double-precision reference at conv2d_gemm's
// tolerance). The tiles are taken a band of tile rows at a time so V and M
// stay small. With several threads, each thread runs whole bands alone when
// there are at least 4 tile rows per thread; else the threads share each
// band (input transform by channel, then GEMMs and output transform by
// ranges of output channels).
//
//   winograd_applies(s)     whether conv2d_gemm takes this path for s:
//                           3x3, stride 1, dilation 1, one group, at least
//                           8 input and output channels, an output of at
//                           least 8x8 (7x7 maps waste a quarter of their
//                           2x2 tiles), Cin * Cout <= 65536 (U <= 4 MiB), an
//                           AVX2 CPU, and TORCHEDGE_WINOGRAD not set to 0.
//   conv2d_winograd_avx2    the convolution (conv2d_gemm's contract: bias,
//                           residual and clamp as its epilogue); returns
//                           MemoryAllocationFailed, output untouched, when
//                           the temp allocator is short, and NotSupported,
//                           output partly written, when the input or the
//                           filters hold an infinity or NaN (the transforms
//                           would spread it to outputs the direct sums keep
//                           finite); conv2d_gemm then computes the whole
//                           output by im2col.
#pragma once

#include "kernels/optimized/conv/conv2d.h"

namespace torchedge {
namespace optimized {
namespace detail {

bool winograd_applies(const Conv2dShape& s);

/// False when the environment sets TORCHEDGE_WINOGRAD=0 (read once): every
/// convolution then takes im2col, for A/B measurements and for users who
/// want the direct sums. The int8 convolution's Winograd path asks too.
bool winograd_enabled();

Error conv2d_winograd_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                           const float* w, const float* bias, float* y, const Conv2dClamp& clamp,
                           const float* residual);

/// Whether conv2d_winograd_pretransformed_avx2 can run here: an AVX2 CPU,
/// and TORCHEDGE_WINOGRAD not set to 0.
bool winograd_pretransformed_available();

/// The same convolution from filters transformed ahead of time (s: 3x3,
/// stride 1, dilation 1, one group, any padding, an output of any size):
/// u [16][Cout][Cin] = G g G^T per filter, as torchedge::conv2d_winograd
/// stores it (python/torchedge/passes/conv2d_winograd_op.py computes it in
/// transform_filters' float32 order, so both give the same bits). No
/// filter transform and no U scratch: this is what makes 512-channel layers
/// and 7x7 maps pay. Returns MemoryAllocationFailed (output untouched) or
/// NotSupported on an infinity or NaN in the input (output partly written);
/// the caller then computes the whole output another way. u is trusted to
/// be finite (to_pte checks the filters).
Error conv2d_winograd_pretransformed_avx2(KernelContext& ctx, const Conv2dShape& s,
                                          const float* x, const float* u, const float* bias,
                                          float* y, const Conv2dClamp& clamp,
                                          const float* residual);

/// The AVX-512 input and output transforms (conv/winograd_avx512.cpp), 16
/// tiles per vector, the same bits as the AVX2 ones; the AVX2 path calls
/// them on AVX-512 CPUs for maps at least kWinogradAvx512MinTiles tiles
/// wide (narrower rows would leave most of the 16 lanes idle).
constexpr int64_t kWinogradAvx512MinTiles = 12;

/// V[xi][t] = (B^T d B)[xi] of the tiles of tile rows [ty0, ty1) of one
/// input plane (t from the band's first tile; V[xi] point_stride floats
/// apart). False when the plane holds an infinity or NaN.
bool winograd_input_avx512(const Conv2dShape& s, int64_t tiles_w, const float* plane, int64_t ty0,
                           int64_t ty1, float* v, int64_t point_stride);

/// One output channel's epilogue: + bias, + its residual plane (or null),
/// then the clamp when active.
struct WinogradEpilogue {
  float bias;
  const float* residual;
  float min, max;
  bool clamp;
};

/// The output rows of tile rows [ty0, ty1) of one channel from its
/// m[xi * point_stride + t] (16 readable floats past the last tile).
void winograd_output_avx512(const Conv2dShape& s, int64_t tiles_w, const float* m,
                            int64_t point_stride, int64_t ty0, int64_t ty1,
                            const WinogradEpilogue& e, float* y);

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
