// run_int8_conv_dot (support/int8_conv_dot.h): the int8 convolution on
// AArch64's dot-product instructions. Compiled with -march=armv8.2-a+dotprod;
// entered only when best_arm_isa() >= kDotProd.
#include <arm_neon.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_conv_dot.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kStrip = 16;  // output pixels per task: 4 vectors of 4 int32 sums
constexpr int64_t kRows = kInt8ConvPanelRows;

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

// Bytes of one strip's quads: [Kq][16 pixels][4 k].
size_t strip_bytes(const Int8ConvProblem& p) {
  return round_up_64(static_cast<size_t>(p.k_quads() * kStrip * 4));
}

int64_t slots_of(const Int8ConvProblem& p) {
  const int64_t tasks = p.groups * ((p.pixels() + kStrip - 1) / kStrip);
  return std::max<int64_t>(1, std::min<int64_t>(tasks, static_cast<int64_t>(num_threads())));
}

struct Layout {
  int32_t* corrections;  // [out_channels]: zx * sum_k w[m, k]
  int8_t* padded;        // the padded copy of one image (unused when flat)
  int8_t* slots;         // slots_of(p) strips
};

Layout layout_of(const Int8ConvProblem& p, void* scratch) {
  char* at = static_cast<char*>(scratch);
  Layout l{};
  l.corrections = reinterpret_cast<int32_t*>(at);
  at += round_up_64(sizeof(int32_t) * static_cast<size_t>(p.out_channels));
  l.padded = reinterpret_cast<int8_t*>(at);
  at += round_up_64(int8_conv_padded_bytes(p));
  l.slots = reinterpret_cast<int8_t*>(at);
  return l;
}

// Row sums of the weights from the panels (k past K holds 0): a dot
// product with ones per quad, rows 0-3 and 4-5 in one instruction each.
void compute_corrections(const Int8ConvProblem& p, int32_t* corrections) {
  const int64_t cout_g = p.cout_g(), kq = p.k_quads();
  const int8x16_t ones = vdupq_n_s8(1);
  for (int64_t g = 0; g < p.groups; ++g) {
    for (int64_t panel = 0; panel < p.panels(); ++panel) {
      const int8_t* wp = p.weight + (g * p.panels() + panel) * p.panel_bytes();
      int32x4_t s03 = vdupq_n_s32(0);
      int32x2_t s45 = vdup_n_s32(0);
      for (int64_t q = 0; q < kq; ++q, wp += 4 * kRows) {
        s03 = vdotq_s32(s03, vld1q_s8(wp), ones);
        s45 = vdot_s32(s45, vld1_s8(wp + 16), vget_low_s8(ones));
      }
      int32_t sums[kRows];
      vst1q_s32(sums, s03);
      vst1_s32(sums + 4, s45);
      for (int64_t r = 0; r < kRows && panel * kRows + r < cout_g; ++r) {
        corrections[g * cout_g + panel * kRows + r] = p.in_zero_point * sums[r];
      }
    }
  }
}

// The strip's im2col columns as quads: xs[(k / 4) * 64 + j * 4 + k % 4] =
// input value of tap k for output pixel q0 + j (pixels past `count` repeat
// pixel q0; k past K is 0).
void gather_strip(const Int8ConvProblem& p, const Int8ConvSource& src, int64_t g, int64_t q0,
                  int64_t count, int8_t* xs) {
  int64_t base[kStrip];
  for (int64_t j = 0; j < kStrip; ++j) {
    const int64_t q = q0 + (j < count ? j : 0);
    const int64_t oh = q / p.out_width, ow = q % p.out_width;
    base[j] = oh * p.stride_h * src.row_stride + ow * p.stride_w;
  }
  const int64_t cin_g = p.cin_g(), k_total = p.k();
  const int8_t* planes = src.planes + g * cin_g * src.plane_stride;
  if (src.flat && count == kStrip) {
    // 1x1: tap k is channel k, and the strip's 16 pixels lie contiguous in
    // each plane. Four channels interleave into 16 pixel quads with zips.
    int64_t c = 0;
    for (; c + 4 <= cin_g; c += 4, xs += 4 * kStrip) {
      const int8_t* at = planes + c * src.plane_stride + q0;
      const int8x16_t a = vld1q_s8(at), b = vld1q_s8(at + src.plane_stride);
      const int8x16_t c2 = vld1q_s8(at + 2 * src.plane_stride);
      const int8x16_t d = vld1q_s8(at + 3 * src.plane_stride);
      const int16x8_t ab_lo = vreinterpretq_s16_s8(vzip1q_s8(a, b));
      const int16x8_t ab_hi = vreinterpretq_s16_s8(vzip2q_s8(a, b));
      const int16x8_t cd_lo = vreinterpretq_s16_s8(vzip1q_s8(c2, d));
      const int16x8_t cd_hi = vreinterpretq_s16_s8(vzip2q_s8(c2, d));
      vst1q_s16(reinterpret_cast<int16_t*>(xs), vzip1q_s16(ab_lo, cd_lo));
      vst1q_s16(reinterpret_cast<int16_t*>(xs + 16), vzip2q_s16(ab_lo, cd_lo));
      vst1q_s16(reinterpret_cast<int16_t*>(xs + 32), vzip1q_s16(ab_hi, cd_hi));
      vst1q_s16(reinterpret_cast<int16_t*>(xs + 48), vzip2q_s16(ab_hi, cd_hi));
    }
    if (c < cin_g) {  // the last, partial quad
      std::memset(xs, 0, 4 * kStrip);
      for (int64_t i = 0; c + i < cin_g; ++i) {
        const int8_t* at = planes + (c + i) * src.plane_stride + q0;
        for (int64_t j = 0; j < kStrip; ++j) xs[j * 4 + i] = at[j];
      }
    }
    return;
  }
  int64_t k = 0;
  for (int64_t c = 0; c < cin_g; ++c) {
    for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
      const int8_t* row = planes + c * src.plane_stride + kh * p.dilation_h * src.row_stride;
      for (int64_t kw = 0; kw < p.kernel_w; ++kw, ++k) {
        const int8_t* tap = row + kw * p.dilation_w;
        int8_t* d = xs + (k >> 2) * (4 * kStrip) + (k & 3);
#pragma GCC unroll 16
        for (int64_t j = 0; j < kStrip; ++j) d[j * 4] = tap[base[j]];
      }
    }
  }
  for (; (k & 3) != 0; ++k) {
    int8_t* d = xs + (k >> 2) * (4 * kStrip) + (k & 3);
    for (int64_t j = 0; j < kStrip; ++j) d[j * 4] = 0;
  }
  (void)k_total;
}

// Rows kRow... of pixel group j: each row's 4 weights are lane kRow of w.
template <int... kRow>
inline void dot_rows(int32x4_t (&acc)[kRows][4], int j, int8x16_t x, int8x16_t w,
                     std::integer_sequence<int, kRow...>) {
  ((acc[kRow][j] = vdotq_laneq_s32(acc[kRow][j], x, w, kRow)), ...);
}

// 6 rows x 16 pixels of sums over kq quads: rows 0-3 take their weights from
// lanes of one 16-byte load, rows 4-5 from an 8-byte one.
void panel_sums(const int8_t* xs, const int8_t* wp, int64_t kq, int32x4_t (&acc)[kRows][4]) {
  for (int r = 0; r < kRows; ++r) {
    for (int j = 0; j < 4; ++j) acc[r][j] = vdupq_n_s32(0);
  }
  for (int64_t q = 0; q < kq; ++q, xs += 4 * kStrip, wp += 4 * kRows) {
    const int8x16_t w03 = vld1q_s8(wp);
    const int8x8_t w45 = vld1_s8(wp + 16);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      const int8x16_t x = vld1q_s8(xs + 16 * j);
      dot_rows(acc, j, x, w03, std::make_integer_sequence<int, 4>());
      acc[4][j] = vdotq_lane_s32(acc[4][j], x, w45, 0);
      acc[5][j] = vdotq_lane_s32(acc[5][j], x, w45, 1);
    }
  }
}

// One row's 16 sums (less the zero point's share) requantized; `count`
// pixels stored.
void requantize_row(const Int8ConvProblem& p, int64_t mg, const int32x4_t (&acc)[4],
                    int32_t correction, int8_t* out, int64_t count) {
  const ChannelRequant rq(p.in_scale, p.w_scales[mg], p.bias != nullptr ? p.bias + mg : nullptr,
                          p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
  const int32x4_t corr = vdupq_n_s32(correction);
  const int8x16_t bytes = narrow_16(rq(vsubq_s32(acc[0], corr)), rq(vsubq_s32(acc[1], corr)),
                                    rq(vsubq_s32(acc[2], corr)), rq(vsubq_s32(acc[3], corr)));
  if (count == kStrip) {
    vst1q_s8(out, bytes);
  } else {
    int8_t tmp[kStrip];
    vst1q_s8(tmp, bytes);
    std::memcpy(out, tmp, static_cast<size_t>(count));
  }
}

void run_strip(const Int8ConvProblem& p, const Int8ConvSource& src, const int32_t* corrections,
               int64_t n, int64_t g, int64_t q0, int8_t* xs) {
  const int64_t count = std::min(kStrip, p.pixels() - q0), cout_g = p.cout_g();
  gather_strip(p, src, g, q0, count, xs);
  const int8_t* weight = p.weight + g * p.panels() * p.panel_bytes();
  int32x4_t acc[kRows][4];
  for (int64_t panel = 0; panel < p.panels(); ++panel) {
    panel_sums(xs, weight + panel * p.panel_bytes(), p.k_quads(), acc);
    for (int64_t r = 0; r < kRows && panel * kRows + r < cout_g; ++r) {
      const int64_t mg = g * cout_g + panel * kRows + r;
      int8_t* out = p.out + (n * p.out_channels + mg) * p.pixels() + q0;
      requantize_row(p, mg, acc[r], corrections[mg], out, count);
    }
  }
}

}  // namespace

size_t int8_conv_dot_scratch_bytes(const Int8ConvProblem& p) {
  return round_up_64(sizeof(int32_t) * static_cast<size_t>(p.out_channels)) +
         round_up_64(int8_conv_padded_bytes(p)) +
         static_cast<size_t>(slots_of(p)) * strip_bytes(p);
}

void run_int8_conv_dot(const Int8ConvProblem& p, int64_t n, void* scratch) {
  const Layout l = layout_of(p, scratch);
  if (n == 0) compute_corrections(p, l.corrections);
  Int8ConvSource src{p.input + n * p.in_channels * p.height * p.width, p.width,
                     p.height * p.width, true};
  if (!int8_conv_is_flat(p)) {
    parallel_for(0, p.in_channels, 16, [&](int64_t begin, int64_t end) {
      int8_conv_pad_image(p, n, begin, end, l.padded);
    });
    src = int8_conv_padded_source(p, l.padded);
  }
  const int64_t strips = (p.pixels() + kStrip - 1) / kStrip;
  // ~256K multiply-adds per chunk at least.
  const int64_t per_strip = std::max<int64_t>(1, kStrip * p.k() * p.cout_g());
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 18) / per_strip);
  const size_t slot_bytes = strip_bytes(p);
  parallel_for_slots(0, p.groups * strips, grain, slots_of(p),
                     [&](int64_t begin, int64_t end, int64_t slot) {
                       int8_t* xs = l.slots + static_cast<size_t>(slot) * slot_bytes;
                       for (int64_t t = begin; t < end; ++t) {
                         run_strip(p, src, l.corrections, n, t / strips, (t % strips) * kStrip, xs);
                       }
                     });
}

}  // namespace quantized
}  // namespace torchedge
