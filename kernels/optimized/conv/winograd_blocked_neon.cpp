// conv2d_winograd_blocked (conv/winograd_blocked.h) for AArch64 NEON: the
// driver over conv2d_blocked's block tile on NEON (conv/conv2d_blocked_tile.h).
#include "kernels/optimized/conv/simd_neon.h"
#include "kernels/optimized/conv/conv2d_blocked_tile.h"
#include "kernels/optimized/conv/winograd_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace detail {

Error conv2d_winograd_blocked_neon(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                   const float* u, const float* bias, const float* residual,
                                   float* y, const Conv2dClamp& clamp) {
  return winograd_blocked_driver::run<BlockTile<Neon, 5>>(ctx, s, x, u, bias, residual, y, clamp);
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
