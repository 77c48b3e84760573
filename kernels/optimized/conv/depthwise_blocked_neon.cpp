// conv2d_depthwise_blocked's AArch64 NEON build (conv/depthwise_blocked.h):
// a pixel's 16 channels in four q registers, which a tile of 16 output
// pixels runs one after the other (16 accumulators, up to 5 weights and an
// input vector of the 32 registers, as the AVX-512 build's zmm tiles).
// Entered when best_arm_isa() >= kNeon.
#include "kernels/optimized/conv/depthwise_blocked_driver.h"
#include "kernels/optimized/conv/simd_neon.h"

namespace torchedge {
namespace optimized {
namespace {

struct NeonDepthwise : Neon {
  static constexpr int kMaxPixels = 16;
};

}  // namespace

namespace detail {
Error conv2d_depthwise_blocked_neon(const DepthwiseBlockedShape& s, const float* x,
                                    const float* w, const float* bias, float* y,
                                    const Conv2dClamp& clamp) {
  return depthwise_blocked_driver::run<NeonDepthwise>(s, x, w, bias, y, clamp);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
