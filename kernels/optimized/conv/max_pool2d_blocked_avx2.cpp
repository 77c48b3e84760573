// Blocked max pooling, AVX2 build (-mavx2 -mfma): conv/max_pool2d_blocked_row.h
// on conv/simd_avx2.h (a pixel's 16 channels in two 8-float registers).
#include "kernels/optimized/conv/simd_avx2.h"
#include "kernels/optimized/conv/max_pool2d_blocked_row.h"

namespace torchedge {
namespace optimized {
namespace detail {

void max_pool2d_blocked_row_avx2(const BlockedPool2dShape& s, const float* image, int64_t oh,
                                 TapRange rows, float* y_row) {
  MaxPoolRow<Avx2>::row(s, image, oh, rows, y_row);
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
