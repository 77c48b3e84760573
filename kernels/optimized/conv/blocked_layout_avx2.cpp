// conv/blocked_layout.h's AVX2 unit: 8 channels x 8 pixels per transpose.
#include <immintrin.h>

#include "kernels/optimized/conv/blocked_layout.h"

namespace torchedge {
namespace optimized {
namespace {

#include "kernels/optimized/gemm/sgemm_pack_x86.h"

constexpr int64_t kBlock = 16;

}  // namespace

namespace detail {

void nchw_to_blocked_avx2(const float* x, int64_t pixels, float* y) {
  int64_t p = 0;
  for (; p + 8 <= pixels; p += 8) {
    for (int64_t half = 0; half < kBlock; half += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(x + (half + i) * pixels + p);
      transpose8(r);  // r[t]: pixel p + t's 8 channels
      for (int t = 0; t < 8; ++t) _mm256_storeu_ps(y + (p + t) * kBlock + half, r[t]);
    }
  }
  for (; p < pixels; ++p) {
    for (int64_t j = 0; j < kBlock; ++j) y[p * kBlock + j] = x[j * pixels + p];
  }
}

void blocked_to_nchw_avx2(const float* y, int64_t pixels, float* x) {
  int64_t p = 0;
  for (; p + 8 <= pixels; p += 8) {
    for (int64_t half = 0; half < kBlock; half += 8) {
      __m256 r[8];
      for (int t = 0; t < 8; ++t) r[t] = _mm256_loadu_ps(y + (p + t) * kBlock + half);
      transpose8(r);  // r[i]: channel half + i of 8 pixels
      for (int i = 0; i < 8; ++i) _mm256_storeu_ps(x + (half + i) * pixels + p, r[i]);
    }
  }
  for (; p < pixels; ++p) {
    for (int64_t j = 0; j < kBlock; ++j) x[j * pixels + p] = y[p * kBlock + j];
  }
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
