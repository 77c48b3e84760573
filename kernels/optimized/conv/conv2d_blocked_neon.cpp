// conv2d_blocked (conv/conv2d_blocked.h) for AArch64 NEON: the driver over
// the ISA-generic block tile (conv/conv2d_blocked_tile.h), 5 pixels x 16
// channels in 20 q-register accumulators. Entered when best_arm_isa() >= kNeon.
#include "kernels/optimized/conv/simd_neon.h"
#include "kernels/optimized/conv/conv2d_blocked_tile.h"

namespace torchedge {
namespace optimized {

namespace detail {
Error conv2d_blocked_neon(KernelContext& ctx, const Conv2dShape& s, const float* x,
                          const float* w, const float* bias, const float* residual, float* y,
                          const Conv2dClamp& clamp) {
  return conv2d_blocked_driver::run<BlockTile<Neon, 5>>(ctx, s, x, w, bias, residual, y, clamp);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
