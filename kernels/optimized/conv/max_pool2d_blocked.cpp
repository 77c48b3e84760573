// Blocked max pooling (conv/max_pool2d_blocked.h): the row walk, the scalar
// rows and the ISA dispatch.
#include "kernels/optimized/conv/max_pool2d_blocked.h"

#include <limits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int64_t kBlock = 16;

// The portable kernel's rule, lane by lane.
void row_scalar(const BlockedPool2dShape& s, const float* image, int64_t oh,
                detail::TapRange rows, float* y_row) {
  const int64_t h0 = oh * s.stride_h - s.pad_h;
  for (int64_t ow = 0; ow < s.out_w; ++ow) {
    const int64_t w0 = ow * s.stride_w - s.pad_w;
    const detail::TapRange cols = detail::window_taps(w0, s.kernel_w, s.dilation_w, s.in_w);
    float best[kBlock];
    for (float& b : best) b = -std::numeric_limits<float>::infinity();
    for (int64_t i = rows.first; i < rows.end; ++i) {
      const float* x_row = image + (h0 + i * s.dilation_h) * s.in_w * kBlock;
      for (int64_t j = cols.first; j < cols.end; ++j) {
        const float* px = x_row + (w0 + j * s.dilation_w) * kBlock;
        for (int64_t c = 0; c < kBlock; ++c) {
          if (px[c] > best[c] || px[c] != px[c]) best[c] = px[c];
        }
      }
    }
    for (int64_t c = 0; c < kBlock; ++c) y_row[ow * kBlock + c] = best[c];
  }
}

}  // namespace

void max_pool2d_blocked_f32(const BlockedPool2dShape& s, const float* x, float* y) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const bool avx2 = static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2);
#endif
#if defined(__aarch64__)
  const bool neon = best_arm_isa() >= ArmIsa::kNeon;
#endif
  const int64_t in_image = s.in_h * s.in_w * kBlock, out_row = s.out_w * kBlock;
  parallel_for(0, s.blocks * s.out_h, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t block = r / s.out_h, oh = r % s.out_h;
      const float* image = x + block * in_image;
      float* y_row = y + r * out_row;
      const detail::TapRange rows =
          detail::window_taps(oh * s.stride_h - s.pad_h, s.kernel_h, s.dilation_h, s.in_h);
#ifndef TORCHEDGE_NO_X86_SIMD
      if (avx2) {
        detail::max_pool2d_blocked_row_avx2(s, image, oh, rows, y_row);
        continue;
      }
#endif
#if defined(__aarch64__)
      if (neon) {
        detail::max_pool2d_blocked_row_neon(s, image, oh, rows, y_row);
        continue;
      }
#endif
      row_scalar(s, image, oh, rows, y_row);
    }
  });
}

}  // namespace optimized
}  // namespace torchedge
