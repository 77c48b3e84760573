// run_int8_conv_dot (support/int8_conv_dot.h): the int8 convolution on
// AArch64's dot-product instructions. Compiled with -march=armv8.2-a+dotprod;
// entered only when best_arm_isa() >= kDotProd.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/arm/int8_conv_gather.h"
#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_conv_dot.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kStrip = kInt8ConvGatherStrip;  // output pixels per task: 4 vectors of 4 int32 sums
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

// Per weight-panel row (groups x panels x 6, padding rows included), once
// per call: -zx * sum_k w[m, k] (the accumulators' start: the zero point's
// share out before the epilogue, exact in int32), in_scale * w_scale
// (requantize()'s factor, computed in float as it computes it) and the
// bias (0 for padding rows or without one); per panel, whether all its rows
// may take the integer epilogue (int_requant_exact).
struct Factors {
  int32_t* neg_corr;
  float* scales;
  float* bias;
  uint8_t* panel_exact;
};

int64_t factor_rows(const Int8ConvProblem& p) { return p.groups * p.panels() * kRows; }

size_t factor_bytes(const Int8ConvProblem& p) {
  return 3 * round_up_64(sizeof(int32_t) * static_cast<size_t>(factor_rows(p))) +
         round_up_64(static_cast<size_t>(p.groups * p.panels()));
}

struct Layout {
  Factors f;
  int8_t* padded;  // the padded copy of one image (unused when flat)
  int8_t* slots;   // slots_of(p) strips
};

Layout layout_of(const Int8ConvProblem& p, void* scratch) {
  char* at = static_cast<char*>(scratch);
  const size_t row_bytes = round_up_64(sizeof(int32_t) * static_cast<size_t>(factor_rows(p)));
  Layout l{};
  l.f.neg_corr = reinterpret_cast<int32_t*>(at);
  l.f.scales = reinterpret_cast<float*>(at + row_bytes);
  l.f.bias = reinterpret_cast<float*>(at + 2 * row_bytes);
  l.f.panel_exact = reinterpret_cast<uint8_t*>(at + 3 * row_bytes);
  at += factor_bytes(p);
  l.padded = reinterpret_cast<int8_t*>(at);
  at += round_up_64(int8_conv_padded_bytes(p));
  l.slots = reinterpret_cast<int8_t*>(at);
  return l;
}

// -zx * the weight row sums, from the panels (k past K holds 0, so padding
// rows sum to 0): dot products with ones, 16 bytes (4 rows of a quad) per
// instruction.
void compute_row_sums(const Int8ConvProblem& p, const Factors& f) {
  const int64_t kq = p.k_quads();
  const int8x16_t ones = vdupq_n_s8(1);
  const int8_t* wp = p.weight;
  for (int64_t panel = 0; panel < p.groups * p.panels(); ++panel) {
    // Two quads (48 bytes) as three 16-byte chunks, one accumulator per
    // chunk: a = rows 0-3 of the first, b = its rows 4-5 and rows 0-1 of
    // the second, c = the second's rows 2-5; an odd last quad by itself.
    int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0), c = vdupq_n_s32(0);
    int32x2_t s45 = vdup_n_s32(0);
    int64_t q = 0;
#pragma GCC unroll 2
    for (; q + 2 <= kq; q += 2, wp += 8 * kRows) {
      const int8x16x3_t v = vld1q_s8_x3(wp);  // one ld1 of three registers
      a = vdotq_s32(a, v.val[0], ones);
      b = vdotq_s32(b, v.val[1], ones);
      c = vdotq_s32(c, v.val[2], ones);
    }
    if (q < kq) {
      a = vdotq_s32(a, vld1q_s8(wp), ones);
      s45 = vdot_s32(s45, vld1_s8(wp + 16), vget_low_s8(ones));
      wp += 4 * kRows;
    }
    // Rows 0-3: a + (b's rows 0-1 of the second quad, c's rows 2-3); rows
    // 4-5: the first quad's (b's low half) + the second's (c's high half).
    const int32x4_t s03 = vaddq_s32(a, vextq_s32(b, c, 2));
    const int32x2_t s45_all = vadd_s32(vadd_s32(vget_low_s32(b), vget_high_s32(c)), s45);
    vst1q_s32(f.neg_corr + panel * kRows, vmulq_n_s32(s03, -p.in_zero_point));
    vst1_s32(f.neg_corr + panel * kRows + 4, vmul_n_s32(s45_all, -p.in_zero_point));
  }
}

// in_scale * w_scale and the bias of each real row; per panel, whether
// its rows may take the integer epilogue. Padding rows are not written
// (the epilogue stops at a panel's real rows).
void compute_scales(const Int8ConvProblem& p, const Factors& f) {
  const int64_t cout_g = p.cout_g(), panels = p.panels();
  for (int64_t g = 0; g < p.groups; ++g) {
    float* scales = f.scales + g * panels * kRows;
    float* bias = f.bias + g * panels * kRows;
    const float* w_scales = p.w_scales + g * cout_g;
    for (int64_t m = 0; m < cout_g; ++m) scales[m] = p.in_scale * w_scales[m];
    if (p.bias != nullptr) std::memcpy(bias, p.bias + g * cout_g, sizeof(float) * cout_g);
    // Every bias finite (the usual case): every row may take the integer
    // epilogue, found 4 biases per compare.
    bool finite = true;
    if (p.bias != nullptr) {
      const float32x4_t inf = vdupq_n_f32(__builtin_inff());
      uint32x4_t ok = vdupq_n_u32(~0u);
      int64_t m = 0;
      for (; m + 4 <= cout_g; m += 4) ok = vandq_u32(ok, vcaltq_f32(vld1q_f32(bias + m), inf));
      finite = vminvq_u32(ok) != 0;
      for (; m < cout_g; ++m) finite = finite && std::isfinite(bias[m]);
    }
    for (int64_t panel = 0; panel < panels; ++panel) {
      bool exact = true;
      if (!finite) {
        const int64_t end = std::min(cout_g, (panel + 1) * kRows);
        for (int64_t m = panel * kRows; m < end; ++m) {
          exact = exact && int_requant_exact(scales[m], bias + m);
        }
      }
      f.panel_exact[g * panels + panel] = exact ? 1 : 0;
    }
  }
}

// The factors above: the row sums from the program's weight_sums when it
// has them, else from the panels.
void compute_factors(const Int8ConvProblem& p, const Factors& f) {
  const int64_t cout_g = p.cout_g(), panels = p.panels();
  if (p.weight_sums != nullptr) {
    // The program's sums: -zx * sum per row, padding rows 0.
    const int32x4_t neg_zx = vdupq_n_s32(-p.in_zero_point);
    for (int64_t g = 0; g < p.groups; ++g) {
      int32_t* dst = f.neg_corr + g * panels * kRows;
      const int32_t* sums = p.weight_sums + g * cout_g;
      int64_t m = 0;
      for (; m + 4 <= cout_g; m += 4) vst1q_s32(dst + m, vmulq_s32(vld1q_s32(sums + m), neg_zx));
      for (; m < cout_g; ++m) dst[m] = -p.in_zero_point * sums[m];
      for (; m < panels * kRows; ++m) dst[m] = 0;
    }
  } else {
    compute_row_sums(p, f);
  }
  compute_scales(p, f);
}

// Rows kRow... of pixel group j: each row's 4 weights are lane kRow of w.
template <int... kRow>
inline void dot_rows(int32x4_t (&acc)[kRows][4], int j, int8x16_t x, int8x16_t w,
                     std::integer_sequence<int, kRow...>) {
  ((acc[kRow][j] = vdotq_laneq_s32(acc[kRow][j], x, w, kRow)), ...);
}

// 6 rows x 4 kGroups pixels of sums over kq quads, each row's started at
// its -correction: rows 0-3 take their weights from lanes of one 16-byte
// load, rows 4-5 from an 8-byte one. kGroups < 4 serves a plane's last
// strip (e.g. 49 = 3 x 16 + 1 pixels: 52 computed, not 64); the groups
// past it are zero.
template <int kGroups>
__attribute__((always_inline)) inline void panel_sums(const int8_t* xs, const int8_t* wp,
                                                      int64_t kq, const int32_t* neg_corr,
                                                      int32x4_t (&acc)[kRows][4]) {
  const int32x4_t c03 = vld1q_s32(neg_corr);
  const int32x2_t c45 = vld1_s32(neg_corr + 4);
  const int32x4_t start[kRows] = {vdupq_laneq_s32(c03, 0), vdupq_laneq_s32(c03, 1),
                                  vdupq_laneq_s32(c03, 2), vdupq_laneq_s32(c03, 3),
                                  vdupq_lane_s32(c45, 0),  vdupq_lane_s32(c45, 1)};
  for (int r = 0; r < kRows; ++r) {
    for (int j = 0; j < 4; ++j) acc[r][j] = j < kGroups ? start[r] : vdupq_n_s32(0);
  }
  // Four quads per iteration: the loop's pointer and count updates once per 96 sdot.
#pragma GCC unroll 4
  for (int64_t q = 0; q < kq; ++q, xs += 4 * kStrip, wp += 4 * kRows) {
    const int8x16_t w03 = vld1q_s8(wp);
    const int8x8_t w45 = vld1_s8(wp + 16);
#pragma GCC unroll 4
    for (int j = 0; j < kGroups; ++j) {
      const int8x16_t x = vld1q_s8(xs + 16 * j);
      dot_rows(acc, j, x, w03, std::make_integer_sequence<int, 4>());
      acc[4][j] = vdotq_lane_s32(acc[4][j], x, w45, 0);
      acc[5][j] = vdotq_lane_s32(acc[5][j], x, w45, 1);
    }
  }
}

// The first `count` (< 16) bytes of v at out: 8-, 4-, 2- and 1-byte pieces
// (no call to memcpy).
__attribute__((always_inline)) inline void store_partial(int8x16_t v, int8_t* out,
                                                         int64_t count) {
  if (count & 8) {
    vst1_s8(out, vget_low_s8(v));
    out += 8;
    v = vextq_s8(v, v, 8);
  }
  if (count & 4) {
    vst1q_lane_s32(reinterpret_cast<int32_t*>(out), vreinterpretq_s32_s8(v), 0);
    out += 4;
    v = vextq_s8(v, v, 4);
  }
  if (count & 2) {
    vst1q_lane_s16(reinterpret_cast<int16_t*>(out), vreinterpretq_s16_s8(v), 0);
    out += 2;
    v = vextq_s8(v, v, 2);
  }
  if (count & 1) vst1q_lane_s8(out, v, 0);
}

template <bool kFull>
__attribute__((always_inline)) inline void store_row(int8x16_t bytes, int8_t* out,
                                                     int64_t count) {
  if constexpr (kFull) {
    vst1q_s8(out, bytes);
  } else {
    store_partial(bytes, out, count);
  }
}

// A panel with a row that may not take the integer epilogue: requantize()'s
// float operations row by row (ChannelRequant), `rows` rows of `count`
// pixels of sums[row][pixel] (a copy: the accumulators stay in registers
// on the common path).
__attribute__((noinline)) void requantize_panel_float(const Int8ConvProblem& p, int64_t m0,
                                                      const int32_t (&sums)[kRows][kStrip],
                                                      int64_t rows, int8_t* out,
                                                      int64_t count) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t mg = m0 + r;
    const ChannelRequant rq(p.in_scale, p.w_scales[mg], p.bias != nullptr ? p.bias + mg : nullptr,
                            p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
    const int8x16_t bytes =
        narrow_16(rq(vld1q_s32(sums[r])), rq(vld1q_s32(sums[r] + 4)),
                  rq(vld1q_s32(sums[r] + 8)), rq(vld1q_s32(sums[r] + 12)));
    if (count == kStrip) {
      vst1q_s8(out + r * p.pixels(), bytes);
    } else {
      store_partial(bytes, out + r * p.pixels(), count);
    }
  }
}

// The integer epilogue of one panel's first `rows` rows: each row's scale
// and bias by ld1r (no registers held across rows), 4 * kGroups pixels
// requantized, `count` stored.
template <int kGroups, bool kBias, bool kFull, int... kRow>
__attribute__((always_inline)) inline void panel_epilogue(
    const int32x4_t (&acc)[kRows][4], const float* scales, const float* bias,
    const IntRequant& iq, int64_t rows, int8_t* out, int64_t pixels, int64_t count,
    std::integer_sequence<int, kRow...>) {
  auto row = [&](auto r_constant) {
    constexpr int r = decltype(r_constant)::value;
    if (r >= rows) return;
    const float32x4_t sv = vld1q_dup_f32(scales + r);
    const float32x4_t bv = kBias ? vld1q_dup_f32(bias + r) : sv;
    store_row<kFull>(iq.row<kGroups, kBias>(acc[r], sv, bv), out + r * pixels, count);
  };
  (row(std::integral_constant<int, kRow>()), ...);
}

// The per-call constants of the strip loops, read once into registers.
struct Geometry {
  const int8_t* weight;
  int8_t* out;
  int64_t panels, panel_bytes, kq, cout_g, pixels, out_channels;
};

// Every weight panel of group g over one strip (16 pixels from q0, `count`
// of them real; kFull: count == 16): sums, then the integer epilogue on the
// rows in registers, or the float one on a copy where a row needs it.
// Group g's weight panels over one strip: body(panel, wp, m0, out, rows)
// with the panel's index over all groups, its weights, its first output
// channel, its first row's output pointer (image n, pixel q0) and its real
// rows (<= 6).
template <typename Body>
__attribute__((always_inline)) inline void for_each_panel(const Geometry& geo, int64_t n,
                                                          int64_t g, int64_t q0, Body&& body) {
  const int64_t panels = geo.panels, panel_bytes = geo.panel_bytes, pixels = geo.pixels;
  const int8_t* wp = geo.weight + g * panels * panel_bytes;
  int64_t m0 = g * geo.cout_g;
  int8_t* out = geo.out + (n * geo.out_channels + m0) * pixels + q0;
  int64_t rows_left = geo.cout_g;
  for (int64_t panel = g * panels; panel < (g + 1) * panels; ++panel) {
    body(panel, wp, m0, out, std::min<int64_t>(kRows, rows_left));
    wp += panel_bytes;
    m0 += kRows;
    out += kRows * pixels;
    rows_left -= kRows;
  }
}

// Every weight panel of group g over one strip (16 pixels from q0, `count`
// of them real; kFull: count == 16): sums, then the integer epilogue on the
// rows in registers, or the float one on a copy where a row needs it.
template <int kGroups, bool kBias, bool kFull>
void strip_panels(const Geometry& geo, const Factors& f, const IntRequant& iq_in,
                  const Int8ConvProblem& p, int64_t n, int64_t g, int64_t q0, int64_t count,
                  const int8_t* xs) {
  // A copy the output stores cannot alias: its 4 registers are not
  // reloaded after each row's store.
  const IntRequant iq = iq_in;
  const int64_t kq = geo.kq, pixels = geo.pixels;
  constexpr auto kAllRows = std::make_integer_sequence<int, kRows>();
  for_each_panel(geo, n, g, q0, [&](int64_t panel, const int8_t* wp, int64_t m0, int8_t* out,
                                    int64_t rows) {
    int32x4_t acc[kRows][4];
    const int64_t idx = panel * kRows;
    panel_sums<kGroups>(xs, wp, kq, f.neg_corr + idx, acc);
    if (__builtin_expect(f.panel_exact[panel] != 0, 1)) {
      if (rows == kRows) {
        panel_epilogue<kGroups, kBias, kFull>(acc, f.scales + idx, f.bias + idx, iq, kRows, out,
                                              pixels, count, kAllRows);
      } else {
        panel_epilogue<kGroups, kBias, kFull>(acc, f.scales + idx, f.bias + idx, iq, rows, out,
                                              pixels, count, kAllRows);
      }
    } else {
      int32_t sums[kRows][kStrip] = {};
      for (int r = 0; r < kRows; ++r) {
        for (int j = 0; j < kGroups; ++j) vst1q_s32(sums[r] + 4 * j, acc[r][j]);
      }
      requantize_panel_float(p, m0, sums, rows, out, count);
    }
  });
}

// A plane's last strip of one pixel (7 x 7 maps: 49 = 3 x 16 + 1), rows as
// lanes: per quad, the pixel's 4 k broadcast (ld1r) against rows 0-3's
// (one 16-byte load) and rows 4-5's (8 bytes): 2 sdot, where the 6 x 4
// tile would run 6 for 4 lanes of which 1 is real. Then one
// requantization of 6 lanes (the rows' factors by lane) and a byte store
// per row.
template <bool kBias>
void strip_one_pixel(const Geometry& geo, const Factors& f, const IntRequant& iq_in,
                     const Int8ConvProblem& p, int64_t n, int64_t g, int64_t q0,
                     const int8_t* xs) {
  const IntRequant iq = iq_in;
  const int64_t kq = geo.kq, pixels = geo.pixels;
  for_each_panel(geo, n, g, q0, [&](int64_t panel, const int8_t* wp, int64_t m0, int8_t* out,
                                    int64_t rows) {
    const int64_t idx = panel * kRows;
    // Two accumulator pairs (even and odd quads): shorter dependency chains.
    int32x4_t a03 = vld1q_s32(f.neg_corr + idx), b03 = vdupq_n_s32(0);
    int32x2_t a45 = vld1_s32(f.neg_corr + idx + 4), b45 = vdup_n_s32(0);
    const int8_t* w = wp;
    const int8_t* x = xs;
    auto quad = [&](int32x4_t& acc03, int32x2_t& acc45, const int8_t* wq, const int8_t* xq) {
      const int8x16_t xv =
          vreinterpretq_s8_s32(vld1q_dup_s32(reinterpret_cast<const int32_t*>(xq)));
      acc03 = vdotq_s32(acc03, vld1q_s8(wq), xv);
      acc45 = vdot_s32(acc45, vld1_s8(wq + 16), vget_low_s8(xv));
    };
    int64_t q = 0;
    for (; q + 2 <= kq; q += 2, w += 8 * kRows, x += 8 * kStrip) {
      quad(a03, a45, w, x);
      quad(b03, b45, w + 4 * kRows, x + 4 * kStrip);
    }
    if (q < kq) quad(a03, a45, w, x);
    const int32x4_t s03 = vaddq_s32(a03, b03);
    const int32x2_t s45 = vadd_s32(a45, b45);
    if (__builtin_expect(f.panel_exact[panel] != 0, 1)) {
      // requantize() by lanes, IntRequant's integer steps (8 lanes, 6 real).
      float32x4_t y0 = vmulq_f32(vcvtq_f32_s32(s03), vld1q_f32(f.scales + idx));
      float32x2_t y1 = vmul_f32(vcvt_f32_s32(s45), vld1_f32(f.scales + idx + 4));
      if constexpr (kBias) {
        y0 = vaddq_f32(y0, vld1q_f32(f.bias + idx));
        y1 = vadd_f32(y1, vld1_f32(f.bias + idx + 4));
      }
      const int32x4_t r0 = vcvtnq_s32_f32(vmulq_f32(y0, iq.inv));
      const int32x2_t r1 = vcvtn_s32_f32(vmul_f32(y1, vget_low_f32(iq.inv)));
      const int16x8_t h =
          vqaddq_s16(vqmovn_high_s32(vqmovn_s32(r0), vcombine_s32(r1, r1)), iq.zero_point);
      const int8x8_t b = vmin_s8(vmax_s8(vqmovn_s16(h), vget_low_s8(iq.lo)), vget_low_s8(iq.hi));
      int8_t bytes[8];
      vst1_s8(bytes, b);
      for (int64_t r = 0; r < rows; ++r) out[r * pixels] = bytes[r];
    } else {
      int32_t sums[kRows][kStrip] = {};
      int32_t lanes[kRows];
      vst1q_s32(lanes, s03);
      vst1_s32(lanes + 4, s45);
      for (int r = 0; r < kRows; ++r) sums[r][0] = lanes[r];
      requantize_panel_float(p, m0, sums, rows, out, 1);
    }
  });
}

template <bool kBias>
void strip_of_groups(const Geometry& geo, const Factors& f, const IntRequant& iq,
                     const Int8ConvProblem& p, int64_t n, int64_t g, int64_t q0, int64_t count,
                     const int8_t* xs) {
  if (count == kStrip) return strip_panels<4, kBias, true>(geo, f, iq, p, n, g, q0, count, xs);
  if (count == 1) return strip_one_pixel<kBias>(geo, f, iq, p, n, g, q0, xs);
  switch ((count + 3) / 4) {
    case 1: return strip_panels<1, kBias, false>(geo, f, iq, p, n, g, q0, count, xs);
    case 2: return strip_panels<2, kBias, false>(geo, f, iq, p, n, g, q0, count, xs);
    case 3: return strip_panels<3, kBias, false>(geo, f, iq, p, n, g, q0, count, xs);
    default: return strip_panels<4, kBias, false>(geo, f, iq, p, n, g, q0, count, xs);
  }
}

void run_strip(const Int8ConvProblem& p, const Int8ConvSource& src, const Geometry& geo,
               const Factors& f, const IntRequant& iq, int64_t n, int64_t g, int64_t q0,
               int8_t* xs) {
  const int64_t count = std::min(kStrip, geo.pixels - q0);
  int8_conv_gather_strip(p, src, g, q0, count, xs);
  if (p.bias != nullptr) {
    strip_of_groups<true>(geo, f, iq, p, n, g, q0, count, xs);
  } else {
    strip_of_groups<false>(geo, f, iq, p, n, g, q0, count, xs);
  }
}

}  // namespace

size_t int8_conv_dot_scratch_bytes(const Int8ConvProblem& p) {
  return factor_bytes(p) + round_up_64(int8_conv_padded_bytes(p)) +
         static_cast<size_t>(slots_of(p)) * strip_bytes(p);
}

void run_int8_conv_dot(const Int8ConvProblem& p, int64_t n, void* scratch) {
  const Layout l = layout_of(p, scratch);
  if (n == 0) compute_factors(p, l.f);
  const Geometry geo{p.weight, p.out, p.panels(), p.panel_bytes(), p.k_quads(),
                     p.cout_g(), p.pixels(), p.out_channels};
  const IntRequant iq(p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
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
                         run_strip(p, src, geo, l.f, iq, n, t / strips, (t % strips) * kStrip, xs);
                       }
                     });
}

}  // namespace quantized
}  // namespace torchedge
