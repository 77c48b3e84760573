// AArch64 dot-product loops of linear_q4a / linear_q8c with int8
// activations (support/group_linear.h, activation_bits 8), over the plain
// weight layouts as they are (no panel): run_group_linear's column split
// calls them for any M where best_arm_isa() >= kDotProd. Compiled with
// -march=armv8.2-a+dotprod.
//
// Per 32 k: kAffine4's 16 code bytes are the even k's codes (vand) and the
// odd k's (vshr), against the activations split the same way by one LD2
// (vld2q_s8); kInt8Channel's 32 codes are two plain loads against two
// activation loads. sdot (vdotq_s32) leaves 4 lanes of exact int32 sums
// of the group; at the group's end they are converted and added into 4
// float lanes with the group's factor (s_j * scale[n, j], or s_j), and
// kAffine4's min term, min[n, j] * s_j * Sx_j, into a scalar; the lanes are
// summed once per output. The tile walk: arm/row_column_tiles.h.
#include <arm_neon.h>

#include "kernels/quantized/support/arm/row_column_tiles.h"
#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

// Rows [m0, m0 + MR) x output rows [n0, n0 + NR).
template <GroupWeightFormat F, int MR, int NR>
void tile(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
          int64_t m0, int64_t n0) {
  constexpr bool kAffine = F == GroupWeightFormat::kAffine4;
  const int64_t k = w.k, g = w.group_size, groups = w.groups();
  const int64_t row_bytes = kAffine ? k / 2 : k;
  const uint8x16_t low4 = vdupq_n_u8(0x0F);
  float32x4_t facc[MR][NR];
  float min_acc[MR][NR];
  for (int r = 0; r < MR; ++r) {
    for (int c = 0; c < NR; ++c) {
      facc[r][c] = vdupq_n_f32(0.0f);
      min_acc[r][c] = 0.0f;
    }
  }
  for (int64_t j = 0; j < groups; ++j) {
    int32x4_t acc[MR][NR];
    for (int r = 0; r < MR; ++r) {
      for (int c = 0; c < NR; ++c) acc[r][c] = vdupq_n_s32(0);
    }
    for (int64_t k0 = j * g; k0 < (j + 1) * g; k0 += 32) {
      int8x16_t x0[MR], x1[MR];  // kAffine4: even and odd k; else k0 + [0, 16) and [16, 32)
      for (int r = 0; r < MR; ++r) {
        const int8_t* xr = a.q + (m0 + r) * k + k0;
        if (kAffine) {
          const int8x16x2_t split = even_odd_activations(xr);
          x0[r] = split.val[0];
          x1[r] = split.val[1];
        } else {
          x0[r] = vld1q_s8(xr);
          x1[r] = vld1q_s8(xr + 16);
        }
      }
      for (int c = 0; c < NR; ++c) {
        const uint8_t* wr = w.codes + (n0 + c) * row_bytes;
        int8x16_t w0, w1;
        if (kAffine) {
          const uint8x16_t codes = vld1q_u8(wr + k0 / 2);
          w0 = vreinterpretq_s8_u8(vandq_u8(codes, low4));
          w1 = vreinterpretq_s8_u8(vshrq_n_u8(codes, 4));
        } else {
          w0 = vld1q_s8(reinterpret_cast<const int8_t*>(wr) + k0);
          w1 = vld1q_s8(reinterpret_cast<const int8_t*>(wr) + k0 + 16);
        }
        for (int r = 0; r < MR; ++r) {
          acc[r][c] = vdotq_s32(acc[r][c], w0, x0[r]);
          acc[r][c] = vdotq_s32(acc[r][c], w1, x1[r]);
        }
      }
    }
    for (int c = 0; c < NR; ++c) {
      const int64_t at = (n0 + c) * groups + j;
      const float scale = kAffine ? group_half_at(w.scales16, at) : 1.0f;
      const float min = kAffine ? group_half_at(w.mins16, at) : 0.0f;
      for (int r = 0; r < MR; ++r) {
        const float s = a.s[(m0 + r) * groups + j];
        facc[r][c] = vfmaq_n_f32(facc[r][c], vcvtq_f32_s32(acc[r][c]), s * scale);
        if (kAffine) min_acc[r][c] += min * a.s_sums[(m0 + r) * groups + j];
      }
    }
  }
  for (int c = 0; c < NR; ++c) {
    const int64_t n = n0 + c;
    for (int r = 0; r < MR; ++r) {
      float y = vaddvq_f32(facc[r][c]);
      y = kAffine ? y + min_acc[r][c] : w.row_scales[n] * y;
      out[(m0 + r) * w.n + n] = y + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

}  // namespace

void group_linear_dotprod(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                          float* out, int64_t n_begin, int64_t n_end) {
  auto walk = [&](auto format) {
    constexpr GroupWeightFormat F = decltype(format)::value;
    for_each_row_column_tile(
        [&](auto mr, auto nr, int64_t m0, int64_t n0) {
          tile<F, decltype(mr)::value, decltype(nr)::value>(a, w, bias, out, m0, n0);
        },
        a.m, n_begin, n_end);
  };
  if (w.format == GroupWeightFormat::kAffine4) {
    walk(std::integral_constant<GroupWeightFormat, GroupWeightFormat::kAffine4>());
  } else {
    walk(std::integral_constant<GroupWeightFormat, GroupWeightFormat::kInt8Channel>());
  }
}

}  // namespace quantized
}  // namespace torchedge
