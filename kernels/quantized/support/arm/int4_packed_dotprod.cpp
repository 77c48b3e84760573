// AArch64 dot-product loops of linear_8da4w_packed (support/int4_packed.h),
// the counterpart of support/x86/int4_packed_avx512vnni.cpp on the same
// blocked records and thread split (run_int8_int4_packed_linear). Compiled
// with -march=armv8.2-a+dotprod; entered only when best_arm_isa() >=
// kDotProd.
//
// A record's 64 bytes for 8 k (i) are 4 NEON vectors, each 4 output rows
// x 4 bytes: the low nibbles (u = q + 8, vand) are sdot's first operand
// against the activation quad at k0 + 8 i, the high nibbles (vshr) against
// the one at k0 + 8 i + 4, both lanes of one 16-byte activation load
// (vdotq_laneq_s32): an int32x4 of sums is 4 output rows. As on x86 the
// sums are D = sum xq u, started at 8 (g x_zp - Sx) per group, and Su (the
// nibbles' sum, sdot against ones) is taken off as x_zp Su at the group's
// end, so I = sum (xq - x_zp) q exactly; then one FMA per 4 rows by the
// group's scales (the record's header).
#include <arm_neon.h>

#include <cstring>

#include "kernels/quantized/support/int4_packed.h"

namespace torchedge {
namespace quantized {
namespace {

// Group gi of rows [m0, m0 + MR) against the 8 output rows 8 h .. 8 h + 7
// of record `rec` (vectors v = 2 h, 2 h + 1), added into facc. Registers at
// MR = 4: 8 float and 8 int32 sum vectors, 2 Su, 4 activation loads, the
// unpacked pair (all 16 rows at once would spill).
template <int MR>
inline void half_group(const Int8Rows& x, const Int4PackedWeight& w, const uint8_t* rec,
                       int64_t gi, int64_t m0, int h, float32x4_t (&facc)[MR][2]) {
  const int64_t k = w.k, g = w.group_size, groups = w.groups();
  const int64_t subs = g / kInt4PackedSubBlock;
  const uint8x16_t low4 = vdupq_n_u8(0x0F);
  const int8x16_t ones = vdupq_n_s8(1);
  int32x4_t acc[MR][2];
  for (int r = 0; r < MR; ++r) {
    const int64_t m = m0 + r;
    const int32x4_t c = vdupq_n_s32(8 * (static_cast<int32_t>(g) * x.zero_points[m] -
                                         x.group_sums[m * groups + gi]));
    acc[r][0] = acc[r][1] = c;
  }
  int32x4_t su[2] = {vdupq_n_s32(0), vdupq_n_s32(0)};
  const uint8_t* half = rec + kInt4PackedHeader + 32 * h;
  for (int64_t s = 0; s < subs; ++s) {
    const uint8_t* sb = half + 256 * s;
    const int64_t k0 = gi * g + kInt4PackedSubBlock * s;
#pragma GCC unroll 2
    for (int pair = 0; pair < 2; ++pair) {
      // Lanes 0-3: k0 + 16 pair + {0, 4, 8, 12}: the low and high nibbles'
      // activations of i = 2 pair and i = 2 pair + 1.
      int8x16_t xv[MR];
      for (int r = 0; r < MR; ++r) xv[r] = vld1q_s8(x.q + (m0 + r) * k + k0 + 16 * pair);
#pragma GCC unroll 2
      for (int ii = 0; ii < 2; ++ii) {
#pragma GCC unroll 2
        for (int v = 0; v < 2; ++v) {
          const uint8x16_t bytes = vld1q_u8(sb + 64 * (2 * pair + ii) + 16 * v);
          const int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(bytes, low4));
          const int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(bytes, 4));
          su[v] = vdotq_s32(su[v], lo, ones);
          su[v] = vdotq_s32(su[v], hi, ones);
          for (int r = 0; r < MR; ++r) {
            if (ii == 0) {
              acc[r][v] = vdotq_laneq_s32(acc[r][v], lo, xv[r], 0);
              acc[r][v] = vdotq_laneq_s32(acc[r][v], hi, xv[r], 1);
            } else {
              acc[r][v] = vdotq_laneq_s32(acc[r][v], lo, xv[r], 2);
              acc[r][v] = vdotq_laneq_s32(acc[r][v], hi, xv[r], 3);
            }
          }
        }
      }
    }
  }
  for (int v = 0; v < 2; ++v) {
    float scales[4];
    std::memcpy(scales, rec + 16 * (2 * h + v), sizeof(scales));  // little endian, as stored
    const float32x4_t sv = vld1q_f32(scales);
    for (int r = 0; r < MR; ++r) {
      const int32x4_t dot = vmlsq_s32(acc[r][v], su[v], vdupq_n_s32(x.zero_points[m0 + r]));
      facc[r][v] = vfmaq_f32(facc[r][v], vcvtq_f32_s32(dot), sv);
    }
  }
}

// Rows [m0, m0 + MR) of x against row block nb (16 output rows = 4
// vectors): each half of 8 rows over every group, then its outputs.
template <int MR>
void rows_of_block(const Int8Rows& x, const Int4PackedWeight& w, const float* bias, float* out,
                   int64_t nb, int64_t m0) {
  for (int h = 0; h < 2; ++h) {
    const int64_t n0 = nb * kInt4PackedRows + 8 * h;
    if (n0 >= w.n) break;  // padding rows only
    float32x4_t facc[MR][2];
    for (int r = 0; r < MR; ++r) facc[r][0] = facc[r][1] = vdupq_n_f32(0.0f);
    for (int64_t gi = 0; gi < w.groups(); ++gi) half_group<MR>(x, w, w.record(nb, gi), gi, m0, h, facc);
    const int64_t valid = w.n - n0 < 8 ? w.n - n0 : 8;
    for (int r = 0; r < MR; ++r) {
      float y[8];
      const float32x4_t xs = vdupq_n_f32(x.scales[m0 + r]);
      for (int v = 0; v < 2; ++v) {
        float32x4_t b = vdupq_n_f32(0.0f);
        if (bias != nullptr && 4 * v + 4 <= valid) b = vld1q_f32(bias + n0 + 4 * v);
        vst1q_f32(y + 4 * v, vfmaq_f32(b, xs, facc[r][v]));
      }
      float* dst = out + (m0 + r) * w.n + n0;
      if (valid == 8) {
        std::memcpy(dst, y, sizeof(y));
      } else {
        // Rows past N are padding; a bias lane past the last whole vector
        // was left 0 above.
        for (int64_t i = 0; i < valid; ++i) {
          dst[i] = y[i] + (bias != nullptr && i >= valid / 4 * 4 ? bias[n0 + i] : 0.0f);
        }
      }
    }
  }
}

}  // namespace

void int8_int4_packed_dotprod(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                              float* out, int64_t nb_begin, int64_t nb_end) {
  constexpr int kTile = 4;
  // One row block's records (K / g of them, ~8.5 bytes per k) stay in
  // cache while every row tile passes over them.
  for (int64_t nb = nb_begin; nb < nb_end; ++nb) {
    int64_t m0 = 0;
    for (; m0 + kTile <= x.m; m0 += kTile) rows_of_block<kTile>(x, w, bias, out, nb, m0);
    switch (x.m - m0) {
      case 3: rows_of_block<3>(x, w, bias, out, nb, m0); break;
      case 2: rows_of_block<2>(x, w, bias, out, nb, m0); break;
      case 1: rows_of_block<1>(x, w, bias, out, nb, m0); break;
      default: break;
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
