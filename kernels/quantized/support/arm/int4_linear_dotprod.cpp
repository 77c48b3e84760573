// AArch64 dot-product loop of linear_8da4w on the plain packed weight
// (support/int4_linear.h: signed nibbles, byte j = q[2j] | q[2j + 1] << 4),
// the counterpart of support/x86/int8_int4_tile_x86.h. Compiled with
// -march=armv8.2-a+dotprod; entered only when best_arm_isa() >= kDotProd.
//
// Per 32 k: the 16 weight bytes' low nibbles sign-extended (shift left 4,
// arithmetic shift right 4) are the even k's q, the high nibbles (arithmetic
// shift right 4) the odd k's, against the activations split the same way
// (one LD2); sdot (signed x signed, no offset) gives D = sum xq q, and sdot
// against ones Sq = sum q. Per group, exactly in int32,
//   sum (xq - xzp)(q - wzp) = D - wzp Sx - xzp (Sq - g wzp)
// (Sx: the row's group sums), then acc += scale * float(I) and
// out = x_scale * acc + bias: the scalar loop's float operations on the
// same integers, so the same bits. The tile walk: arm/row_column_tiles.h.
#include <arm_neon.h>

#include "kernels/quantized/support/arm/row_column_tiles.h"
#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {
namespace {

// Activation rows [m0, m0 + MR) x output columns [n0, n0 + NR).
template <int MR, int NR>
void tile(const Int8Rows& x, const Int4Weight& w, const float* bias, float* out, int64_t m0,
          int64_t n0) {
  const int64_t k = w.k, g = w.group_size, groups = k / g;
  const int8x16_t ones = vdupq_n_s8(1);
  float acc[MR][NR] = {};
  for (int64_t gi = 0; gi < groups; ++gi) {
    int32x4_t dot[MR][NR], sq[NR];
    for (int c = 0; c < NR; ++c) {
      sq[c] = vdupq_n_s32(0);
      for (int r = 0; r < MR; ++r) dot[r][c] = vdupq_n_s32(0);
    }
    for (int64_t k0 = gi * g; k0 < (gi + 1) * g; k0 += 32) {
      int8x16x2_t xs[MR];
      for (int r = 0; r < MR; ++r) xs[r] = even_odd_activations(x.q + (m0 + r) * k + k0);
      for (int c = 0; c < NR; ++c) {
        const int8x16_t b = vld1q_s8(reinterpret_cast<const int8_t*>(w.packed) +
                                     (n0 + c) * (k / 2) + k0 / 2);
        const int8x16_t even = vshrq_n_s8(vshlq_n_s8(b, 4), 4), odd = vshrq_n_s8(b, 4);
        sq[c] = vdotq_s32(vdotq_s32(sq[c], even, ones), odd, ones);
        for (int r = 0; r < MR; ++r) {
          dot[r][c] = vdotq_s32(dot[r][c], even, xs[r].val[0]);
          dot[r][c] = vdotq_s32(dot[r][c], odd, xs[r].val[1]);
        }
      }
    }
    for (int c = 0; c < NR; ++c) {
      const int64_t at = (n0 + c) * groups + gi;
      const int32_t wzp = w.zero_points != nullptr ? w.zero_points[at] : 0;
      const int32_t sq_minus = vaddvq_s32(sq[c]) - static_cast<int32_t>(g) * wzp;
      for (int r = 0; r < MR; ++r) {
        const int64_t m = m0 + r;
        const int32_t i = vaddvq_s32(dot[r][c]) - wzp * x.group_sums[m * groups + gi] -
                          x.zero_points[m] * sq_minus;
        acc[r][c] += w.scales[at] * static_cast<float>(i);
      }
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int c = 0; c < NR; ++c) {
      const int64_t m = m0 + r, n = n0 + c;
      out[m * w.n + n] = x.scales[m] * acc[r][c] + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

}  // namespace

void int8_int4_linear_dotprod(const Int8Rows& x, const Int4Weight& w, const float* bias,
                              float* out, int64_t n_begin, int64_t n_end) {
  for_each_row_column_tile(
      [&](auto mr, auto nr, int64_t m0, int64_t n0) {
        tile<decltype(mr)::value, decltype(nr)::value>(x, w, bias, out, m0, n0);
      },
      x.m, n_begin, n_end);
}

}  // namespace quantized
}  // namespace torchedge
