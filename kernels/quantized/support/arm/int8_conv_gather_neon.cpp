// int8_conv_gather_strip (support/arm/int8_conv_gather.h): the im2col
// strips of the AArch64 sdot convolution. Plain NEON (the baseline).
#include <arm_neon.h>

#include <cstring>

#include "kernels/quantized/support/arm/int8_conv_gather.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kStrip = kInt8ConvGatherStrip;

// Four taps' 16 pixel values (a, b, c, d: taps k..k+3) as 16 pixel quads
// at xs: one 4-way interleaving store (st4).
__attribute__((always_inline)) inline void store_quads(int8x16_t a, int8x16_t b, int8x16_t c,
                                                       int8x16_t d, int8_t* xs) {
  vst4q_s8(xs, (int8x16x4_t{{a, b, c, d}}));
}

// A strip's pixels in a padded copy as runs along rows: in run r, lane j
// of the tap's values is byte start[r] + j * stride_w from the tap, so one
// 16-byte load (stride 2: a de-interleaving load) per run and a select by
// the run's lanes give a tap's 16 values. At most kMaxRuns runs (maps at
// least ~4 pixels wide); the lanes past `count` continue the last run.
constexpr int kMaxRuns = 6;

struct Runs {
  int n = 0;
  int64_t start[kMaxRuns];
  uint8x16_t lanes[kMaxRuns];
};

bool runs_of(const int64_t (&base)[kStrip], int64_t stride_w, Runs* runs) {
  uint8_t lanes[kMaxRuns][kStrip] = {};
  int n = 0;
  for (int j = 0; j < kStrip; ++j) {
    if (j == 0 || base[j] != base[j - 1] + stride_w) {
      if (n == kMaxRuns) return false;
      runs->start[n++] = base[j] - j * stride_w;
    }
    lanes[n - 1][j] = 0xff;
  }
  runs->n = n;
  for (int r = 0; r < n; ++r) runs->lanes[r] = vld1q_u8(lanes[r]);
  return true;
}

template <int kStrideW, int kRuns>
__attribute__((always_inline)) inline int8x16_t tap_values(const int8_t* tap, const Runs& runs) {
  auto load = [&](int r) {
    return kStrideW == 1 ? vld1q_s8(tap + runs.start[r]) : vld2q_s8(tap + runs.start[r]).val[0];
  };
  int8x16_t v = load(0);
#pragma GCC unroll 6
  for (int r = 1; r < kRuns; ++r) v = vbslq_s8(runs.lanes[r], load(r), v);
  return v;
}

// The padded copy's strips by runs (above): each tap's 16 values stored at
// xs + 16 k, taps in order (channel, row, column), then every 64 bytes (4
// taps) turned into 16 pixel quads in place (a load of four registers and
// st4): no tap values held in registers across taps.
template <int kStrideW, int kRuns>
void gather_runs(const Int8ConvProblem& p, const Int8ConvSource& src, const int8_t* planes,
                 const Runs& runs, int8_t* xs) {
  const int64_t cin_g = p.cin_g(), kernel_h = p.kernel_h, kernel_w = p.kernel_w;
  const int64_t row_step = p.dilation_h * src.row_stride, col_step = p.dilation_w;
  const int64_t plane_stride = src.plane_stride;
  int8_t* t = xs;
  for (int64_t c = 0; c < cin_g; ++c) {
    const int8_t* row = planes + c * plane_stride;
    for (int64_t kh = 0; kh < kernel_h; ++kh, row += row_step) {
      const int8_t* tap = row;
      for (int64_t kw = 0; kw < kernel_w; ++kw, tap += col_step, t += kStrip) {
        vst1q_s8(t, tap_values<kStrideW, kRuns>(tap, runs));
      }
    }
  }
  const int64_t k_total = cin_g * kernel_h * kernel_w, kq = (k_total + 3) / 4;
  for (int64_t k = k_total; k < 4 * kq; ++k, t += kStrip) vst1q_s8(t, vdupq_n_s8(0));
  for (int64_t q = 0; q < kq; ++q, xs += 4 * kStrip) {
    const int8x16x4_t v = vld1q_s8_x4(xs);
    vst4q_s8(xs, v);
  }
}

template <int kStrideW>
void gather_runs_of(const Int8ConvProblem& p, const Int8ConvSource& src, const int8_t* planes,
                    const Runs& runs, int8_t* xs) {
  switch (runs.n) {
    case 1: return gather_runs<kStrideW, 1>(p, src, planes, runs, xs);
    case 2: return gather_runs<kStrideW, 2>(p, src, planes, runs, xs);
    case 3: return gather_runs<kStrideW, 3>(p, src, planes, runs, xs);
    case 4: return gather_runs<kStrideW, 4>(p, src, planes, runs, xs);
    case 5: return gather_runs<kStrideW, 5>(p, src, planes, runs, xs);
    default: return gather_runs<kStrideW, kMaxRuns>(p, src, planes, runs, xs);
  }
}

// 1x1: tap k is channel k, and the strip's pixels lie contiguous in each
// plane from `at`. Four channels interleave into 16 pixel quads (st4).
// kFull: 16 pixels; else `count` < 16 pixels, the plane's last, read by a
// load that ends at the last one (the plane holds at least 16) and a table
// look-up that moves them to lanes 0..count-1 (lanes past it are 0).
template <bool kFull>
void gather_flat(const Int8ConvProblem& p, const Int8ConvSource& src, const int8_t* at,
                 int64_t count, int8_t* xs) {
  const int64_t cin_g = p.cin_g(), stride = src.plane_stride;
  const int64_t shift = kFull ? 0 : kStrip - count;
  static const uint8_t kLanes[kStrip] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const uint8x16_t lanes = vaddq_u8(vld1q_u8(kLanes), vdupq_n_u8(static_cast<uint8_t>(shift)));
  auto load = [&](const int8_t* from) {
    return kFull ? vld1q_s8(from) : vqtbl1q_s8(vld1q_s8(from - shift), lanes);
  };
  int64_t c = 0;
  for (; c + 4 <= cin_g; c += 4, xs += 4 * kStrip, at += 4 * stride) {
    store_quads(load(at), load(at + stride), load(at + 2 * stride), load(at + 3 * stride), xs);
  }
  if (c < cin_g) {  // the last, partial quad
    std::memset(xs, 0, 4 * kStrip);
    const int64_t real = kFull ? kStrip : count;
    for (int64_t i = 0; c + i < cin_g; ++i, at += stride) {
      for (int64_t j = 0; j < real; ++j) xs[j * 4 + i] = at[j];
    }
  }
}

}  // namespace

void int8_conv_gather_strip(const Int8ConvProblem& p, const Int8ConvSource& src, int64_t g,
                            int64_t q0, int64_t count, int8_t* xs) {
  const int64_t cin_g = p.cin_g(), k_total = p.k();
  const int8_t* planes = src.planes + g * cin_g * src.plane_stride;
  if (src.flat && count == kStrip) {
    gather_flat<true>(p, src, planes + q0, 0, xs);
    return;
  }
  if (src.flat && p.pixels() >= kStrip) {
    // A plane's last strip: each load ends at the plane's last pixel.
    gather_flat<false>(p, src, planes + q0, count, xs);
    return;
  }
  int64_t base[kStrip];
  for (int64_t j = 0; j < kStrip; ++j) {
    const int64_t q = q0 + (j < count ? j : 0);
    const int64_t oh = q / p.out_width, ow = q % p.out_width;
    base[j] = oh * p.stride_h * src.row_stride + ow * p.stride_w;
  }
  if (!src.flat && (p.stride_w == 1 || p.stride_w == 2)) {
    // The padded copy has kInt8ConvPadSlack bytes either side, so a run's
    // load may start up to 15 * stride_w bytes before its first pixel and
    // the lanes past `count` may read past the last.
    int64_t cont[kStrip];
    for (int64_t j = 0; j < kStrip; ++j) {
      cont[j] = j < count ? base[j] : base[count - 1] + (j - count + 1) * p.stride_w;
    }
    Runs runs;
    if (runs_of(cont, p.stride_w, &runs)) {
      if (p.stride_w == 1) {
        gather_runs_of<1>(p, src, planes, runs, xs);
      } else {
        gather_runs_of<2>(p, src, planes, runs, xs);
      }
      return;
    }
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


}  // namespace quantized
}  // namespace torchedge
