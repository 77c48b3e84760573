// Blocked max pooling, AVX2 build (-mavx2 -mfma): one output row, a
// pixel's 16 channels in two 8-float registers (conv/max_pool2d_blocked.h).
// Each tap is max(v, best) (which keeps best when either is NaN or they are
// equal), then v where v is NaN: the portable rule's bits (a NaN is taken,
// the last one wins, nothing replaces it; ties keep the first). That chain
// is latency-bound, so neighbouring pixels whose windows have the same taps
// inside the input (all but the borders) run two at a time.
#include <immintrin.h>

#include <limits>

#include "kernels/optimized/conv/max_pool2d_blocked.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

constexpr int64_t kBlock = 16;

inline __m256 take(__m256 best, __m256 v) {
  return _mm256_blendv_ps(_mm256_max_ps(v, best), v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

// kPixels neighbouring outputs starting at y, the first window at (h0, w0),
// the others stride_w columns on, all with taps rows x cols inside.
template <int kPixels>
void pool_pixels(const BlockedPool2dShape& s, const float* image, int64_t h0, TapRange rows,
                 int64_t w0, TapRange cols, float* y) {
  const __m256 lowest = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 best[kPixels][2];
  for (int p = 0; p < kPixels; ++p) best[p][0] = best[p][1] = lowest;
  const int64_t next = s.stride_w * kBlock;  // one pixel's window to the next
  for (int64_t i = rows.first; i < rows.end; ++i) {
    const float* x_row = image + (h0 + i * s.dilation_h) * s.in_w * kBlock;
    for (int64_t j = cols.first; j < cols.end; ++j) {
      const float* px = x_row + (w0 + j * s.dilation_w) * kBlock;
      for (int p = 0; p < kPixels; ++p) {
        best[p][0] = take(best[p][0], _mm256_loadu_ps(px + p * next));
        best[p][1] = take(best[p][1], _mm256_loadu_ps(px + p * next + 8));
      }
    }
  }
  for (int p = 0; p < kPixels; ++p) {
    _mm256_storeu_ps(y + p * kBlock, best[p][0]);
    _mm256_storeu_ps(y + p * kBlock + 8, best[p][1]);
  }
}

}  // namespace

void max_pool2d_blocked_row_avx2(const BlockedPool2dShape& s, const float* image, int64_t oh,
                                 TapRange rows, float* y_row) {
  const int64_t h0 = oh * s.stride_h - s.pad_h;
  for (int64_t ow = 0; ow < s.out_w;) {
    const int64_t w0 = ow * s.stride_w - s.pad_w;
    const TapRange cols = window_taps(w0, s.kernel_w, s.dilation_w, s.in_w);
    if (ow + 1 < s.out_w) {
      const TapRange next = window_taps(w0 + s.stride_w, s.kernel_w, s.dilation_w, s.in_w);
      if (next.first == cols.first && next.end == cols.end) {
        pool_pixels<2>(s, image, h0, rows, w0, cols, y_row + ow * kBlock);
        ow += 2;
        continue;
      }
    }
    pool_pixels<1>(s, image, h0, rows, w0, cols, y_row + ow * kBlock);
    ++ow;
  }
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
