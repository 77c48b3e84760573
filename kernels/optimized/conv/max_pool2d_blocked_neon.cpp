// Blocked max pooling on AArch64 NEON: conv/max_pool2d_blocked_row.h on
// conv/simd_neon.h (a pixel's 16 channels in four 4-float registers).
#include "kernels/optimized/conv/simd_neon.h"
#include "kernels/optimized/conv/max_pool2d_blocked_row.h"

namespace torchedge {
namespace optimized {
namespace detail {

void max_pool2d_blocked_row_neon(const BlockedPool2dShape& s, const float* image, int64_t oh,
                                 TapRange rows, float* y_row) {
  MaxPoolRow<Neon>::row(s, image, oh, rows, y_row);
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
