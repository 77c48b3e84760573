// torchedge/kernels/optimized/conv/simd_neon.h
//
// simd_avx2.h's vector interface for AArch64 NEON (the convolution tiles
// and vec/vec_loops.h): 4 float lanes (one q
// register), FMA (fmla), min/max that return NaN when either operand is NaN
// (fmin / fmax), so the AVX2 callers' NaN-keeping argument order holds here
// too. NEON is part of the AArch64 base ISA: include from *_neon.cpp files
// (built on aarch64 only) and enter when best_arm_isa() >= kNeon. Anonymous
// namespace, as in simd_avx2.h.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

namespace torchedge {
namespace optimized {
namespace {

struct Neon {
  using V = float32x4_t;
  static constexpr int kLanes = 4;
  static V load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, V v) { vst1q_f32(p, v); }
  static V zero() { return vdupq_n_f32(0.0f); }
  static V set1(float v) { return vdupq_n_f32(v); }
  static V broadcast(const float* p) { return vld1q_dup_f32(p); }
  /// a * b + c, one rounding.
  static V fma(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  /// a * lane kLane of x + c, one rounding (fmla by element). An asm
  /// statement, not vfmaq_laneq_f32: with the intrinsic GCC 12 hoisted the
  /// next channel's weight loads into accumulators' registers and moved
  /// accumulators through spare ones, 8-9 `mov`s per 80 FMAs in the 5-pixel
  /// tile's inner loop (105 instructions, now 97; the 4-pixel one 89 -> 80).
  static constexpr bool kLaneFma = true;
  template <int kLane>
  static V fma_lane(V a, V x, V c) {
    asm("fmla %0.4s, %1.4s, %2.s[%3]" : "+w"(c) : "w"(a), "w"(x), "i"(kLane));
    return c;
  }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V sub(V a, V b) { return vsubq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V div(V a, V b) { return vdivq_f32(a, b); }
  /// The first n (0 < n < 4) floats at p, the other lanes `fill` / stored
  /// to p: NEON has no masked loads, so through a 4-float buffer.
  static V load_tail(const float* p, int64_t n, float fill = 0.0f) {
    float buf[4] = {fill, fill, fill, fill};
    std::memcpy(buf, p, sizeof(float) * static_cast<size_t>(n));
    return vld1q_f32(buf);
  }
  static void store_tail(float* p, V v, int64_t n) {
    float buf[4];
    vst1q_f32(buf, v);
    std::memcpy(p, buf, sizeof(float) * static_cast<size_t>(n));
  }
  static V min(V a, V b) { return vminq_f32(a, b); }
  static V max(V a, V b) { return vmaxq_f32(a, b); }
  /// The portable max-pool rule: v where v > best or v is NaN, else best
  /// (not fmax: it would return +0 for (-0, +0) and best's NaN).
  static V take_max(V best, V v) {
    const uint32x4_t take = vorrq_u32(vcgtq_f32(v, best), vmvnq_u32(vceqq_f32(v, v)));
    return vbslq_f32(take, v, best);
  }
  /// Horizontal sum / max of the 4 lanes (faddp / fmaxp across the vector).
  static float reduce_add(V v) { return vaddvq_f32(v); }
  static float reduce_max(V v) { return vmaxvq_f32(v); }
  static void in_register(V& v) { asm("" : "+w"(v)); }
};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
