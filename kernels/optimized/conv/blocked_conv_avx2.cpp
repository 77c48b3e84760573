// The blocked-layout float32 convolutions for AVX2 (compiled with -mavx2
// -mfma; entered when best_isa() is kAvx2, AVX-512 hosts take the
// *_avx512.cpp builds), each a driver over AVX2 vectors (conv/simd_avx2.h):
//   conv2d_blocked (conv2d_blocked.h) and the Winograd GEMMs
//     (winograd_blocked.h): the block tile (conv2d_blocked_tile.h), 6
//     pixels x 16 channels in two ymm halves;
//   conv2d_depthwise_blocked (depthwise_blocked.h): a pixel's 16 channels in
//     two ymm halves, which a tile of 8 output pixels runs one after the
//     other (8 accumulators, up to 5 weights and an input vector of the 16
//     registers; the second half finds the tile's input in L1).
// blocked_conv_neon.cpp is the same for AArch64.
#include "kernels/optimized/conv/simd_avx2.h"
#include "kernels/optimized/conv/conv2d_blocked_tile.h"
#include "kernels/optimized/conv/depthwise_blocked_driver.h"
#include "kernels/optimized/conv/winograd_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace {

using Avx2Tile = BlockTile<Avx2, 6>;
struct Avx2Depthwise : Avx2 {
  static constexpr int kMaxPixels = 8;
};

}  // namespace

Error detail::conv2d_blocked_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                  const float* w, const float* bias, const float* residual,
                                  float* y, const Conv2dClamp& clamp) {
  return conv2d_blocked_driver::run<Avx2Tile>(ctx, s, x, w, bias, residual, y, clamp);
}
Error detail::conv2d_winograd_blocked_avx2(KernelContext& ctx, const Conv2dShape& s,
                                           const float* x, const float* u, const float* bias,
                                           const float* residual, float* y,
                                           const Conv2dClamp& clamp) {
  return winograd_blocked_driver::run<Avx2Tile>(ctx, s, x, u, bias, residual, y, clamp);
}
Error detail::conv2d_depthwise_blocked_avx2(const DepthwiseBlockedShape& s, const float* x,
                                            const float* w, const float* bias, float* y,
                                            const Conv2dClamp& clamp) {
  return depthwise_blocked_driver::run<Avx2Depthwise>(s, x, w, bias, y, clamp);
}

}  // namespace optimized
}  // namespace torchedge
