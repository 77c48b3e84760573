// conv/blocked_layout.h: the threading and the element-wise fallback.
#include "kernels/optimized/conv/blocked_layout.h"

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int64_t kBlock = 16;

// x: one block's 16 channel planes (HW apart) <-> y: [HW, 16].
void to_blocked_scalar(const float* x, int64_t pixels, float* y) {
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t j = 0; j < kBlock; ++j) y[p * kBlock + j] = x[j * pixels + p];
  }
}

void to_nchw_scalar(const float* y, int64_t pixels, float* x) {
  for (int64_t j = 0; j < kBlock; ++j) {
    for (int64_t p = 0; p < pixels; ++p) x[j * pixels + p] = y[p * kBlock + j];
  }
}

template <typename F>
void per_block(int64_t batch, int64_t channels, F&& f) {
  const int64_t blocks = batch * (channels / kBlock);
  parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) f(b);
  });
}

bool use_avx2() {
#ifndef TORCHEDGE_NO_X86_SIMD
  return static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2);
#else
  return false;
#endif
}

}  // namespace

void channel_block_to_blocked(const float* x, int64_t pixels, float* y) {
#ifndef TORCHEDGE_NO_X86_SIMD
  if (use_avx2()) return detail::nchw_to_blocked_avx2(x, pixels, y);
#endif
  to_blocked_scalar(x, pixels, y);
}

void nchw_to_blocked(const float* x, int64_t batch, int64_t channels, int64_t pixels, float* y) {
  per_block(batch, channels, [&](int64_t b) {
    // Blocks of one image follow each other.
    channel_block_to_blocked(x + b * kBlock * pixels, pixels, y + b * kBlock * pixels);
  });
}

void blocked_to_nchw(const float* y, int64_t batch, int64_t channels, int64_t pixels, float* x) {
  const bool avx2 = use_avx2();
  per_block(batch, channels, [&](int64_t b) {
    const float* src = y + b * kBlock * pixels;
    float* dst = x + b * kBlock * pixels;
#ifndef TORCHEDGE_NO_X86_SIMD
    if (avx2) return detail::blocked_to_nchw_avx2(src, pixels, dst);
#endif
    to_nchw_scalar(src, pixels, dst);
  });
  (void)avx2;
}

}  // namespace optimized
}  // namespace torchedge
