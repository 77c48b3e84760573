// The AArch64 NEON SGEMM micro-kernel: a 6 x 16 tile (24 accumulator
// registers, 4 for the B row, 2 for the A column, of the 32 vector
// registers) over sgemm_driver.h, so blocking, packing, threading and the
// 16-wide prepacked weight strips are the x86 kernels' own. Compiled on
// aarch64 only (CMakeLists.txt) and entered when best_arm_isa() allows NEON
// (sgemm.cpp).
#include <arm_neon.h>

#include "kernels/optimized/gemm/sgemm_driver.h"

namespace torchedge {
namespace optimized {
namespace {

struct NeonKernel {
  static constexpr int kMr = 6;
  static constexpr int kNr = 16;
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 120;
  static constexpr int64_t kNc = 1024;

  static void micro(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc,
                    bool accumulate) {
    tile<kMr>(kc, pa, pb, c, ldc, accumulate);
  }

  // sgemm_driver.h's optional partial tile: the first `rows` rows only, so
  // a last strip of M (BERT's 32 tokens: 5 x 6 + 2) costs its rows, not 6
  // (it ran the full tile into the edge buffer: 36 rows of work for 32).
  // The same FMAs in the same order per element as micro (bit-identical).
  static void micro_rows(int rows, int64_t kc, const float* pa, const float* pb, float* c,
                         int64_t ldc, bool accumulate) {
    switch (rows) {
      case 1: return tile<1>(kc, pa, pb, c, ldc, accumulate);
      case 2: return tile<2>(kc, pa, pb, c, ldc, accumulate);
      case 3: return tile<3>(kc, pa, pb, c, ldc, accumulate);
      case 4: return tile<4>(kc, pa, pb, c, ldc, accumulate);
      default: return tile<5>(kc, pa, pb, c, ldc, accumulate);
    }
  }

  // kRows (1..kMr) rows x 16 columns: row i's multiplier is lane i of the
  // packed A column (lanes 0-3 of one q register, 4-5 of a d register).
  template <int kRows>
  static void tile(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc,
                   bool accumulate) {
    float32x4_t acc[kRows][4];
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < 4; ++j) acc[i][j] = vdupq_n_f32(0.0f);
    }
    // Unrolled: the loop's own add / compare / branch per k was 3 of ~33
    // instructions (QEMU instruction counts, BERT encoder).
#pragma GCC unroll 4
    for (int64_t k = 0; k < kc; ++k) {
      const float32x4_t a03 = vld1q_f32(pa + k * kMr);
      float32x2_t a45 = vdup_n_f32(0.0f);
      if constexpr (kRows > 4) a45 = vld1_f32(pa + k * kMr + 4);
      const float* b = pb + k * kNr;
      for (int j = 0; j < 4; ++j) {
        const float32x4_t bj = vld1q_f32(b + 4 * j);
        acc[0][j] = vfmaq_laneq_f32(acc[0][j], bj, a03, 0);
        if constexpr (kRows > 1) acc[1 % kRows][j] = vfmaq_laneq_f32(acc[1 % kRows][j], bj, a03, 1);
        if constexpr (kRows > 2) acc[2 % kRows][j] = vfmaq_laneq_f32(acc[2 % kRows][j], bj, a03, 2);
        if constexpr (kRows > 3) acc[3 % kRows][j] = vfmaq_laneq_f32(acc[3 % kRows][j], bj, a03, 3);
        if constexpr (kRows > 4) acc[4 % kRows][j] = vfmaq_lane_f32(acc[4 % kRows][j], bj, a45, 0);
        if constexpr (kRows > 5) acc[5 % kRows][j] = vfmaq_lane_f32(acc[5 % kRows][j], bj, a45, 1);
      }
    }
    for (int i = 0; i < kRows; ++i) store_row(c + i * ldc, acc[i], accumulate);
  }

  // gemv_strips (sgemm_driver.h): one row of A over kStrips (1..4)
  // prepacked 16-wide strips, k in order from zero with the same fused
  // multiply-adds as micro's one-row sums (bit-identical). A 1-row GEMM
  // (MobileNetV2's 1 x 1000 x 1280 head) otherwise ran the 6-row tile with
  // 5 rows of padding: 2.85M -> 0.6M instructions under QEMU.
  template <int kStrips>
  static void gemv_strips(int64_t kc, const float* a, const float* pb, int64_t strip_stride,
                          float* c, bool accumulate) {
    float32x4_t acc[kStrips][4];
    for (int s = 0; s < kStrips; ++s) {
      for (int j = 0; j < 4; ++j) acc[s][j] = vdupq_n_f32(0.0f);
    }
    for (int64_t k = 0; k < kc; ++k, pb += kNr) {
      const float32x4_t x = vld1q_dup_f32(a + k);
#pragma GCC unroll 4
      for (int s = 0; s < kStrips; ++s) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          acc[s][j] = vfmaq_f32(acc[s][j], vld1q_f32(pb + s * strip_stride + 4 * j), x);
        }
      }
    }
    for (int s = 0; s < kStrips; ++s) store_row(c + s * kNr, acc[s], accumulate);
  }

  static void store_row(float* row, const float32x4_t (&acc)[4], bool accumulate) {
    for (int j = 0; j < 4; ++j) {
      const float32x4_t v = accumulate ? vaddq_f32(vld1q_f32(row + 4 * j), acc[j]) : acc[j];
      vst1q_f32(row + 4 * j, v);
    }
  }
};

}  // namespace

namespace detail {
Error sgemm_neon(KernelContext& ctx, const SgemmProblem& p) {
  return sgemm_driver::run<NeonKernel>(ctx, p);
}
size_t sgemm_scratch_bytes_neon(const SgemmProblem& p) {
  return sgemm_driver::scratch_bytes<NeonKernel>(p);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
