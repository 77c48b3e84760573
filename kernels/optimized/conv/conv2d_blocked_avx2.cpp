// conv2d_blocked (conv/conv2d_blocked.h) for AVX2: the driver over
// Avx2Tile (conv/conv2d_blocked_tile_avx2.h).
#include "kernels/optimized/conv/conv2d_blocked_tile_avx2.h"

namespace torchedge {
namespace optimized {

namespace detail {
Error conv2d_blocked_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                          const float* w, const float* bias, const float* residual, float* y,
                          const Conv2dClamp& clamp) {
  return conv2d_blocked_driver::run<Avx2Tile>(ctx, s, x, w, bias, residual, y, clamp);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
