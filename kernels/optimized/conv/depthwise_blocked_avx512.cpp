// conv2d_depthwise_blocked's AVX-512 build (conv/depthwise_blocked.h): a
// pixel's 16 channels in one zmm, interior tiles of up to 16 output pixels
// (16 accumulators, up to 5 weights and an input vector: no spills).
// Compiled with -mavx512f/dq/bw/vl; entered only when best_isa() == kAvx512.
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -W(maybe-)uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/optimized/conv/depthwise_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMaxPixels = 16;
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V zero() { return _mm512_setzero_ps(); }
  static V set1(float v) { return _mm512_set1_ps(v); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V min(V a, V b) { return _mm512_min_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  // Keeps a loaded vector in a register: GCC otherwise folds the load into
  // each FMA that uses it (three loads of every input pixel in a 3-wide row).
  static void in_register(V& v) { asm("" : "+v"(v)); }
};

}  // namespace

namespace detail {
Error conv2d_depthwise_blocked_avx512(const DepthwiseBlockedShape& s, const float* x,
                                      const float* w, const float* bias, float* y,
                                      const Conv2dClamp& clamp) {
  return depthwise_blocked_driver::run<Avx512>(s, x, w, bias, y, clamp);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
