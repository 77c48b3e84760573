// conv2d_blocked (conv/conv2d_blocked.h) for AVX512: the driver over
// Avx512Tile (conv/conv2d_blocked_tile_avx512.h).
#include "kernels/optimized/conv/conv2d_blocked_tile_avx512.h"

namespace torchedge {
namespace optimized {

namespace detail {
Error conv2d_blocked_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, const float* residual, float* y,
                            const Conv2dClamp& clamp, BlockedActivation activation) {
  return conv2d_blocked_driver::run<Avx512Tile>(ctx, s, x, w, bias, residual, y, clamp,
                                                activation);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
