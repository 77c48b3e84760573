// conv2d_winograd_blocked (conv/winograd_blocked.h) for AVX2: the driver
// over conv2d_blocked's Avx2Tile (conv/conv2d_blocked_tile_avx2.h).
#include "kernels/optimized/conv/conv2d_blocked_tile_avx2.h"
#include "kernels/optimized/conv/winograd_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace detail {

Error conv2d_winograd_blocked_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                   const float* u, const float* bias, const float* residual,
                                   float* y, const Conv2dClamp& clamp) {
  return winograd_blocked_driver::run<Avx2Tile>(ctx, s, x, u, bias, residual, y, clamp);
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
