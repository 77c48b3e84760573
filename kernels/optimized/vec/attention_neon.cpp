// AArch64 NEON traits of the attention blocks (attention_tile.h,
// flash_attention_tile.h): 4 floats per vector, 4 x 4 score and 4 x 4 value
// register tiles (16 accumulators of the 32 q registers), 4 x 4 transposes
// of the key tile, exp from vec_math_neon.h. The vector operations are
// conv/simd_neon.h's; entered when best_arm_isa() >= kNeon (aarch64 builds
// only) and the head / value dim is a multiple of 4.
#include <cmath>
#include <limits>

#include "kernels/optimized/conv/simd_neon.h"
#include "kernels/optimized/vec/attention.h"
#include "kernels/optimized/vec/flash_attention.h"
#include "kernels/optimized/vec/vec_math_neon.h"

namespace torchedge {
namespace optimized {
namespace {

struct NeonAttention : Neon {
  static constexpr int kWidth = 4;
  static constexpr int kScoreRows = 4, kScoreVectors = 4;
  static constexpr int kValueRows = 4, kValueVectors = 4;
  // zero, load, store, set1, add, mul, sub, max, reduce_add / reduce_max: Neon's.
  static V fmadd(V a, V b, V c) { return fma(a, b, c); }
  static V exp(V v) { return NeonMath::exp(v); }
  static void transpose(const float* src, int64_t src_stride, int valid, float* dst,
                        int64_t dst_stride) {
    V r[4];
    for (int i = 0; i < 4; ++i) r[i] = i < valid ? vld1q_f32(src + i * src_stride) : zero();
    // Rows (a b c d) -> pairs interleaved (trn) -> 64-bit halves swapped (zip).
    const float32x4x2_t t01 = vtrnq_f32(r[0], r[1]), t23 = vtrnq_f32(r[2], r[3]);
    auto lo = [](V a, V b) { return vcombine_f32(vget_low_f32(a), vget_low_f32(b)); };
    auto hi = [](V a, V b) { return vcombine_f32(vget_high_f32(a), vget_high_f32(b)); };
    vst1q_f32(dst + 0 * dst_stride, lo(t01.val[0], t23.val[0]));
    vst1q_f32(dst + 1 * dst_stride, lo(t01.val[1], t23.val[1]));
    vst1q_f32(dst + 2 * dst_stride, hi(t01.val[0], t23.val[0]));
    vst1q_f32(dst + 3 * dst_stride, hi(t01.val[1], t23.val[1]));
  }
};

#include "kernels/optimized/vec/attention_tile.h"
#include "kernels/optimized/vec/flash_attention_tile.h"

}  // namespace

TORCHEDGE_ATTENTION_BLOCKS(neon, NeonAttention)

}  // namespace optimized
}  // namespace torchedge
