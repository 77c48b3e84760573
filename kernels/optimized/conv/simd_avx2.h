// torchedge/kernels/optimized/conv/simd_avx2.h
//
// The AVX2 vector operations the ISA-generic loops are written in
// (conv2d_blocked_tile.h, depthwise_blocked_driver.h, vec/vec_loops.h): 8
// float lanes.
// simd_neon.h is the same interface for AArch64 NEON (4 lanes).
//
// Include ONLY from AVX2 translation units (compiled with -mavx2 -mfma);
// the struct lives in an anonymous namespace, so each includer gets its own
// copy (the rule of gemm/sgemm_driver.h).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace torchedge {
namespace optimized {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int kLanes = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float v) { return _mm256_set1_ps(v); }
  static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  /// a * b + c, one rounding.
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static constexpr bool kLaneFma = false;  // no FMA by element: broadcasts
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  /// The first n (0 < n < 8) floats at p, other lanes 0 (masked load) /
  /// stored to p, other lanes untouched (masked store).
  static __m256i tail_mask(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V load_tail(const float* p, int64_t n) { return _mm256_maskload_ps(p, tail_mask(n)); }
  static void store_tail(float* p, V v, int64_t n) { _mm256_maskstore_ps(p, tail_mask(n), v); }
  // min(a, b) / max(a, b) return b when either is NaN: callers pass the
  // value second so a NaN stays NaN.
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  /// The portable max-pool rule: v where v > best or v is NaN, else best
  /// (max_ps returns its second operand, best, on NaN or equality).
  static V take_max(V best, V v) {
    return _mm256_blendv_ps(_mm256_max_ps(v, best), v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  /// Horizontal sum of the 8 lanes.
  static float reduce_add(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  // Keeps a loaded vector in a register: GCC otherwise folds the load into
  // each FMA that uses it (three loads of every input pixel in a 3-wide row).
  static void in_register(V& v) { asm("" : "+x"(v)); }
};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
