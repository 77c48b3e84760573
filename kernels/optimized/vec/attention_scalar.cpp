// Scalar traits of the attention block (attention_tile.h): one float per
// "vector", so any head dim works; the fallback on CPUs without AVX2 and
// for head dims that are not a multiple of 8.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/optimized/vec/attention.h"
#include "kernels/optimized/vec/flash_attention.h"

namespace torchedge {
namespace optimized {
namespace {

struct Scalar {
  using V = float;
  static constexpr int kWidth = 1;
  static constexpr int kScoreRows = 4, kScoreVectors = 4;
  static constexpr int kValueRows = 4, kValueVectors = 4;
  static V zero() { return 0.0f; }
  static V load(const float* p) { return *p; }
  static void store(float* p, V v) { *p = v; }
  static V set1(float x) { return x; }
  static V fmadd(V a, V b, V c) { return a * b + c; }
  static V add(V a, V b) { return a + b; }
  static V mul(V a, V b) { return a * b; }
  static V sub(V a, V b) { return a - b; }
  static V max(V a, V b) { return std::max(a, b); }
  static V exp(V v) { return std::exp(v); }
  static float reduce_add(V v) { return v; }
  static float reduce_max(V v) { return v; }
  static void transpose(const float* src, int64_t, int valid, float* dst, int64_t) {
    *dst = valid > 0 ? *src : 0.0f;
  }
};

#include "kernels/optimized/vec/attention_tile.h"
#include "kernels/optimized/vec/flash_attention_tile.h"

}  // namespace

TORCHEDGE_ATTENTION_BLOCKS(scalar, Scalar)

}  // namespace optimized
}  // namespace torchedge
