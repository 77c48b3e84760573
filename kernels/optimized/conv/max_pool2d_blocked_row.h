// torchedge/kernels/optimized/conv/max_pool2d_blocked_row.h
//
// One output row of blocked max pooling (conv/max_pool2d_blocked.h) written
// once over an ISA's vector operations S (conv/simd_avx2.h, simd_neon.h):
// a pixel's 16 channels in 16 / S::kLanes registers. Each tap is
// S::take_max(best, v), the portable rule's bits (a NaN is taken, the last
// one wins, nothing replaces it; ties keep the first, so -0 stays before
// +0). That chain is latency-bound, so neighbouring pixels whose windows
// have the same taps inside the input (all but the borders) run two at a
// time.
//
// Include ONLY from one ISA's translation unit (max_pool2d_blocked_<isa>.cpp),
// after its simd_<isa>.h; everything here is in that file's anonymous
// namespace.
#pragma once

#include <limits>

#include "kernels/optimized/conv/max_pool2d_blocked.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

template <typename S>
struct MaxPoolRow {
  using V = typename S::V;
  static constexpr int64_t kBlock = 16;
  static constexpr int kParts = 16 / S::kLanes;

  // kPixels neighbouring outputs starting at y, the first window at (h0, w0),
  // the others stride_w columns on, all with taps rows x cols inside.
  template <int kPixels>
  static void pixels(const BlockedPool2dShape& s, const float* image, int64_t h0, TapRange rows,
                     int64_t w0, TapRange cols, float* y) {
    V best[kPixels][kParts];
    for (int p = 0; p < kPixels; ++p) {
      for (int h = 0; h < kParts; ++h) best[p][h] = S::set1(-std::numeric_limits<float>::infinity());
    }
    const int64_t next = s.stride_w * kBlock;  // one pixel's window to the next
    for (int64_t i = rows.first; i < rows.end; ++i) {
      const float* x_row = image + (h0 + i * s.dilation_h) * s.in_w * kBlock;
      for (int64_t j = cols.first; j < cols.end; ++j) {
        const float* px = x_row + (w0 + j * s.dilation_w) * kBlock;
        for (int p = 0; p < kPixels; ++p) {
          for (int h = 0; h < kParts; ++h) {
            best[p][h] = S::take_max(best[p][h], S::load(px + p * next + h * S::kLanes));
          }
        }
      }
    }
    for (int p = 0; p < kPixels; ++p) {
      for (int h = 0; h < kParts; ++h) S::store(y + p * kBlock + h * S::kLanes, best[p][h]);
    }
  }

  static void row(const BlockedPool2dShape& s, const float* image, int64_t oh, TapRange rows,
                  float* y_row) {
    const int64_t h0 = oh * s.stride_h - s.pad_h;
    for (int64_t ow = 0; ow < s.out_w;) {
      const int64_t w0 = ow * s.stride_w - s.pad_w;
      const TapRange cols = window_taps(w0, s.kernel_w, s.dilation_w, s.in_w);
      if (ow + 1 < s.out_w) {
        const TapRange next = window_taps(w0 + s.stride_w, s.kernel_w, s.dilation_w, s.in_w);
        if (next.first == cols.first && next.end == cols.end) {
          pixels<2>(s, image, h0, rows, w0, cols, y_row + ow * kBlock);
          ow += 2;
          continue;
        }
      }
      pixels<1>(s, image, h0, rows, w0, cols, y_row + ow * kBlock);
      ++ow;
    }
  }
};

}  // namespace
}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
