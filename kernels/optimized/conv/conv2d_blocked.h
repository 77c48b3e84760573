// torchedge/kernels/optimized/conv/conv2d_blocked.h
//
// Float32 2-D convolution on channel-blocked activations (NCHW16c, the
// layout of torchedge::conv2d_blocked; python/torchedge/passes/
// conv2d_blocked_op.py is the definition):
//
//   input    [N, Cin / 16, H, W, 16]     (channel c of pixel (h, w) at
//   residual [N, Cout / 16, OH, OW, 16]   [c / 16][h][w][c % 16])
//   output   [N, Cout / 16, OH, OW, 16]
//   weights  [ceil(Cout / 64), Cin / 16, KH, KW, 16 ci, 64 co] (zeros past Cout)
//
// One group, no dilation, Cout a multiple of 16, Cin too or (a network's
// first layer) below 16 with a plain NCHW input [N, Cin, H, W] and the
// weights of one block of 16 input channels, zeros past Cin; any kernel
// size and padding, strides of 1 or 2 along the width (others:
// NotSupported). Why this layout (ONNX Runtime's NCHWc): the NCHW
// kernels compute a convolution as a GEMM whose vectors run along pixels,
// which makes them pack the activations (im2col, or the B panel of a 1x1
// convolution) on every call, waste lanes on 7x7 and 14x14 maps (49 and 196
// pixels in 16-wide strips) and write their output through dozens of
// row streams. Here the vectors run along 16 output channels: each input
// value is broadcast from where it lies into four 16-wide weight vectors
// (64 output channels), a tile of up to 6 output pixels x 64 channels lives
// in 24 zmm accumulators, and a tile's output is 6 x 4 contiguous 64-byte
// vectors. Padding is a zero-bordered copy of the input (scratch). The
// residual starts a tile's accumulators (the first block of input channels
// adds to it); bias and clamp are applied to the accumulators of the last
// block, ((residual + sum) + bias) then min(max, max(min, v)), NaN kept.
// So y may be the residual itself (the same pointer; any other overlap is
// not allowed): every residual value is read by the tile that writes its
// output position, before anything is stored there, and the partial sums
// between blocks of input channels then replace it. The memory planner
// writes a residual block's output over its residual that way
// (python/torchedge/memory/execution_plan.py): ONNX Runtime's NCHWc
// convolution does the same with its Sum input, and it saves a separate
// output's read-for-ownership traffic (ResNet-50's 1x1 64->256 @56 +add,
// AMD EPYC Zen 3: 1718 -> 1333 us in cache, 2122 -> 1725 from memory). ResNet-50's layers, 1 thread (Ice Lake class Xeon): 1.1-1.9x
// the im2col / Winograd NCHW path (kernels/optimized/bench/conv_bench.cpp
// --blocked).
//
// On a CPU with AMX (amx_usable(); TORCHEDGE_ISA=avx512 or lower turns it
// off), convolutions of blocked inputs with at least kConvAmxMinPixels
// output pixels, kConvAmxMinOutChannels output channels and kConvAmxMinK
// products per output run on the tile unit instead (conv2d_blocked_amx.cpp: the
// GEMM over the virtual im2col matrix, float32-accurate by gemm/sgemm_amx.h's
// six bfloat16 products; scratch: 6 K Cout bytes of split weights and 768 K
// bytes per worker, K = Cin KH KW, fewer workers when the temp allocator is
// short). An input or weight holding an infinity, NaN or subnormal (the tile
// unit reads subnormals as zero), or a residual that is y itself, goes to the
// AVX-512 kernel.
//
// Returns MemoryAllocationFailed when ctx's temp allocator cannot hold the
// padded input copy (the output is then untouched: the caller falls back to
// the portable kernel) and NotSupported where no SIMD build applies (an x86
// CPU below AVX2, an ARM one without NEON, or another architecture).
#pragma once

#include <cstdint>

#include "kernels/optimized/conv/conv2d.h"
#include "runtime/core/error.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

constexpr int64_t kConvBlock = 16;       // channels per vector
constexpr int64_t kConvBlockGroup = 64;  // output channels per packed weight group
// Where the AMX path is not taken (kernels/optimized/bench/conv_bench.cpp
// --filter "amx ", both kernels alternated): below this many output pixels
// (splitting the weights per call costs about as much as 256 pixels of
// products), below this many output channels or this many products per
// output (K = Cin KH KW): the input's split, once per pixel and K, is then
// shared by too few products (ResNet-50's 1x1 256->64 @56 ran ~8 % slower
// on AMX, MobileNetV2's 1x1 32->144 @56 10-15 %; 256->128 @56 1.36x faster,
// 64->256 @56 1.13-1.33x).
constexpr int64_t kConvAmxMinPixels = 256;
constexpr int64_t kConvAmxMinOutChannels = 128;
constexpr int64_t kConvAmxMinK = 64;

// The activation after the clamp: none, the exact GELU (gelu_erf,
// torchedge::conv2d_blocked_gelu) or SiLU (x / (1 + e^-x),
// torchedge::conv2d_blocked_silu).
enum class BlockedActivation : uint8_t { kNone, kGelu, kSilu };

// out_channels is a multiple of kConvBlock, in_channels too or below it
// (plain input); groups and the dilations are 1 (checked by the caller).
// y = activation(clamp(...)): the AVX-512 tile and the AMX kernel apply it
// to the values about to be stored; AVX2 and NEON run one vectorized pass
// over y after the convolution.
Error conv2d_blocked(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                     const float* bias, const float* residual, float* y,
                     const Conv2dClamp& clamp = {},
                     BlockedActivation activation = BlockedActivation::kNone);

// Whether conv2d_blocked runs (s, residual, y) on the AMX tile unit.
bool conv2d_blocked_amx_applies(const Conv2dShape& s, const float* residual, const float* y);

namespace detail {
// NotSupported (y partly written) when x or w holds an infinity, NaN or subnormal;
// MemoryAllocationFailed (y untouched) when scratch for one worker is short.
Error conv2d_blocked_amx(KernelContext& ctx, const Conv2dShape& s, const float* x,
                         const float* w, const float* bias, const float* residual, float* y,
                         const Conv2dClamp& clamp, BlockedActivation activation);
Error conv2d_blocked_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, const float* residual, float* y,
                            const Conv2dClamp& clamp, BlockedActivation activation);
Error conv2d_blocked_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                          const float* w, const float* bias, const float* residual, float* y,
                          const Conv2dClamp& clamp);
// AArch64 builds only (blocked_conv_neon.cpp).
Error conv2d_blocked_neon(KernelContext& ctx, const Conv2dShape& s, const float* x,
                          const float* w, const float* bias, const float* residual, float* y,
                          const Conv2dClamp& clamp);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
