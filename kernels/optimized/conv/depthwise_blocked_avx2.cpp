// conv2d_depthwise_blocked's AVX2 build (conv/depthwise_blocked.h): a
// pixel's 16 channels in two ymm halves, which a tile of 8 output pixels
// runs one after the other (8 accumulators, up to 5 weights and an input
// vector of the 16 registers; the second half finds the tile's input in
// L1). Compiled with -mavx2 -mfma; entered when best_isa() is kAvx2
// (AVX-512 hosts take depthwise_blocked_avx512.cpp).
#include "kernels/optimized/conv/depthwise_blocked_driver.h"
#include "kernels/optimized/conv/simd_avx2.h"

namespace torchedge {
namespace optimized {
namespace {

// The driver's tile: 8 output pixels per tile.
struct Avx2Depthwise : Avx2 {
  static constexpr int kMaxPixels = 8;
};

}  // namespace

namespace detail {
Error conv2d_depthwise_blocked_avx2(const DepthwiseBlockedShape& s, const float* x,
                                    const float* w, const float* bias, float* y,
                                    const Conv2dClamp& clamp) {
  return depthwise_blocked_driver::run<Avx2Depthwise>(s, x, w, bias, y, clamp);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
