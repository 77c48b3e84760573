// The blocked-layout float32 convolutions on AArch64 NEON (entered when
// best_arm_isa() >= kNeon), each the x86 builds' driver over NEON vectors
// (conv/simd_neon.h):
//   conv2d_blocked (conv2d_blocked.h) and the Winograd GEMMs
//     (winograd_blocked.h): the block tile (conv2d_blocked_tile.h), 5 pixels
//     x 16 channels in 20 q-register accumulators;
//   conv2d_depthwise_blocked (depthwise_blocked.h): a pixel's 16 channels
//     in four q registers, 16-pixel tiles (16 accumulators, up to 5 weights
//     and an input vector of the 32 registers, as the AVX-512 build's zmm
//     tiles);
//   max_pool2d_blocked (max_pool2d_blocked.h): max_pool2d_blocked_row.h's
//     row, a pixel's 16 channels in four q registers.
#include "kernels/optimized/conv/simd_neon.h"
#include "kernels/optimized/conv/conv2d_blocked_tile.h"
#include "kernels/optimized/conv/depthwise_blocked_driver.h"
#include "kernels/optimized/conv/max_pool2d_blocked_row.h"
#include "kernels/optimized/conv/winograd_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace {

using NeonTile = BlockTile<Neon, 5>;
struct NeonDepthwise : Neon {
  static constexpr int kMaxPixels = 16;
};

}  // namespace

Error detail::conv2d_blocked_neon(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                  const float* w, const float* bias, const float* residual,
                                  float* y, const Conv2dClamp& clamp) {
  return conv2d_blocked_driver::run<NeonTile>(ctx, s, x, w, bias, residual, y, clamp);
}
Error detail::conv2d_winograd_blocked_neon(KernelContext& ctx, const Conv2dShape& s,
                                           const float* x, const float* u, const float* bias,
                                           const float* residual, float* y,
                                           const Conv2dClamp& clamp) {
  return winograd_blocked_driver::run<NeonTile>(ctx, s, x, u, bias, residual, y, clamp);
}
Error detail::conv2d_depthwise_blocked_neon(const DepthwiseBlockedShape& s, const float* x,
                                            const float* w, const float* bias, float* y,
                                            const Conv2dClamp& clamp) {
  return depthwise_blocked_driver::run<NeonDepthwise>(s, x, w, bias, y, clamp);
}
void detail::max_pool2d_blocked_row_neon(const BlockedPool2dShape& s, const float* image,
                                         int64_t oh, TapRange rows, float* y_row) {
  MaxPoolRow<Neon>::row(s, image, oh, rows, y_row);
}

}  // namespace optimized
}  // namespace torchedge
