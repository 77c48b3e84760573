// conv2d_depthwise_blocked's AVX2 build (conv/depthwise_blocked.h): a
// pixel's 16 channels in two ymm halves, which a tile of 8 output pixels
// runs one after the other (8 accumulators, up to 5 weights and an input
// vector of the 16 registers; the second half finds the tile's input in
// L1). Compiled with -mavx2 -mfma; entered when best_isa() is kAvx2
// (AVX-512 hosts take depthwise_blocked_avx512.cpp).
#include <immintrin.h>

#include "kernels/optimized/conv/depthwise_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMaxPixels = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float v) { return _mm256_set1_ps(v); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  // Keeps a loaded vector in a register: GCC otherwise folds the load into
  // each FMA that uses it (three loads of every input pixel in a 3-wide row).
  static void in_register(V& v) { asm("" : "+x"(v)); }
};

}  // namespace

namespace detail {
Error conv2d_depthwise_blocked_avx2(const DepthwiseBlockedShape& s, const float* x,
                                    const float* w, const float* bias, float* y,
                                    const Conv2dClamp& clamp) {
  return depthwise_blocked_driver::run<Avx2>(s, x, w, bias, y, clamp);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
