// AVX2 path of the int8 convolution (contract: support/int8_conv.h). Per
// (image, group, chunk of 16-pixel output strips), a GEMM C[Cout_g, 16 px]
// per strip, K in blocks of kInt8ConvBlockPairs pairs:
//  1. widen: the weight panels, int8 -> int16, each quad's rows split
//     into its two pairs (the tile's A order): once per call into scratch the workers share
//     (int8_conv_widen_weights; perf: ~2% of the time vs 5-8% when each
//     chunk widened its blocks), or per block and chunk past the budget;
//  2. pack: each strip's block of im2col columns, int16 (x - zx) in the
//     tile's B order [pair][16 px][2]. Row k of the strip is 16 bytes read
//     from the source planes (the padded copy, so no bounds checks): one
//     load per output row the strip touches (blended; a strip straddles a
//     row end when OW is not a multiple of 16), stride 2 deinterleaves a
//     32-byte load, other strides gather lane by lane. Two rows k, k+1 are
//     interleaved bytewise, sign-extended and shifted by zx;
//  3. multiply: the 6x16 tile of int8_tile_avx2.h, panel by panel over the
//     chunk's packed strips (a panel's block stays in L1 and the weights are
//     read once per block, not per strip: +2-5% for Cout >= 256), partial
//     sums in [chunk][Cout_g rounded to 6][16] int32; a last strip of <= 8
//     pixels (7x7 maps) takes the half-width 12x8 tile (+10-15% there);
//  4. epilogue: requantize() of support/int8_gemm.h, 8 lanes at a time, in
//     the same float operations (mul, add, mul, round to nearest even, add,
//     clamp; NaN -> 0, masked only when a non-finite scale or bias makes NaN
//     possible), two output channels per pack (+5-12% for K <= 64), 16
//     contiguous int8 pixels per channel; with a residual (conv2d_add_int8)
//     the requantized int32 lanes (int8 values) and the residual's go
//     through the add's formula (int8_add_avx2.h) before the packs (-10% on
//     ResNet-50's 56x56 tail vs packing to int8 and unpacking again).
// Compiled with -mavx2 -mfma (and -ffp-contract=off: no fused epilogue).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/x86/int8_add_avx2.h"
#include "kernels/quantized/support/x86/int8_requant_avx2.h"
#include "kernels/quantized/support/x86/int8_tile_avx2.h"

namespace torchedge {
namespace quantized {
namespace {

using int8_tile::load256;
using int8_tile::store256;

constexpr int64_t kStrip = kInt8ConvStrip;
constexpr int64_t kRows = kInt8ConvPanelRows;

#include "kernels/quantized/support/x86/int8_conv_strips_x86.h"

// Interleaves rows k (r0) and k + 1 (r1) of the strip into pair q of b,
// sign-extended and shifted by zx.
inline void store_pair(__m128i r0, __m128i r1, __m256i zx16, int16_t* b) {
  const __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(r0, r1));
  const __m256i hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(r0, r1));
  store256(b, _mm256_sub_epi16(lo, zx16));
  store256(b + 16, _mm256_sub_epi16(hi, zx16));
}

// The strip's pairs [q0, q0 + block) into b ([pair][16][2] int16, x - zx;
// k >= K reads as zx, i.e. 0). rows[k - 2 q0]: the (c, kh, kw) base of row
// k (row_bases). The common cases (one load per row) get their own loop.
void pack_block(const Int8ConvProblem& p, const StripPlan& sp, const int8_t* const* rows,
                int64_t q0, int64_t block, int16_t* b) {
  const __m128i zx8 = _mm_set1_epi8(static_cast<char>(p.in_zero_point));
  const __m256i zx16 = _mm256_set1_epi16(static_cast<int16_t>(p.in_zero_point));
  // Pairs whose both rows exist; an odd K leaves one last half pair.
  const int64_t full = std::min(block, p.k() / 2 - q0);
  int64_t q = 0;
  if (sp.mode == RowMode::kStride1 && sp.nseg == 1) {
    const int64_t off = sp.seg_offset[0];
    for (; q < full; ++q) {
      store_pair(load128(rows[2 * q] + off), load128(rows[2 * q + 1] + off), zx16, b + q * 32);
    }
  } else {
    for (; q < full; ++q) {
      store_pair(strip_row(sp, rows[2 * q]), strip_row(sp, rows[2 * q + 1]), zx16, b + q * 32);
    }
  }
  for (; q < block; ++q) {
    const bool has_row = 2 * (q0 + q) < p.k();
    store_pair(has_row ? strip_row(sp, rows[2 * q]) : zx8, zx8, zx16, b + q * 32);
  }
}

// count int8 -> int16.
void widen_quads(const int8_t* src, int64_t pairs, int16_t* dst) {
  // Per quad (24 bytes, [row][4 k]): rows 0-3 from one 16-byte load, rows
  // 4-5 from an 8-byte one; bytes (0, 1) of each row form pair 2q, (2, 3)
  // pair 2q + 1.
  const __m128i split4 = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  const __m128i split2 = _mm_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, -1, -1, -1, -1, -1, -1, -1, -1);
  for (int64_t q = 0; 2 * q < pairs; ++q, src += 4 * kRows) {
    const __m128i a = _mm_shuffle_epi8(load128(src), split4);  // [even r0-3 | odd r0-3]
    const __m128i b = _mm_shuffle_epi8(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + 16)), split2);  // [even r4-5 | odd r4-5]
    const __m256i even = _mm256_cvtepi8_epi16(_mm_unpacklo_epi64(a, b));
    int16_t* e = dst + 2 * q * 2 * kRows;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(e), _mm256_castsi256_si128(even));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(e + 8), _mm256_extracti128_si256(even, 1));
    if (2 * q + 1 < pairs) {
      const __m256i odd = _mm256_cvtepi8_epi16(
          _mm_unpacklo_epi64(_mm_srli_si128(a, 8), _mm_srli_si128(b, 4)));
      int16_t* o = e + 2 * kRows;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_castsi256_si128(odd));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 8), _mm256_extracti128_si256(odd, 1));
    }
  }
}

// Pairs [q0, q0 + block) (q0 even: a whole quad) of panels [pb, pe) of the
// group, sign-extended: a[panel - pb][pair][6][2].
void widen_block(const Int8ConvProblem& p, const int8_t* group_weight, int64_t q0,
                 int64_t block, int64_t pb, int64_t pe, int16_t* a) {
  const int64_t count = block * 2 * kRows;
  for (int64_t pn = pb; pn < pe; ++pn) {
    widen_quads(group_weight + pn * p.panel_bytes() + (q0 / 2) * 4 * kRows, block,
                a + (pn - pb) * count);
  }
}

// requantize() for one strip's output channels, 8 lanes at a time. kNan:
// whether a NaN can occur (a non-finite scale product, bias or inverse
// scale; then NaN becomes 0 as in to_quant()); without, the mask is skipped.
// kResidual: p.residual is set (a compile-time switch, so the plain
// convolution's loop stays as tight as without the feature). kInteger (no
// NaN, no residual, and |y * inv_out_scale| < 2^30 for every exact sum:
// integer_epilogue_fits): the same result with fewer operations, the
// depthwise paths' integer requantization (Int8RequantAvx2::
// thirty_two_bounded: vcvtps2dq, saturating int16 zero point, int8 clamp).
template <bool kBias, bool kNan, bool kResidual, bool kInteger = false>
struct Epilogue {
  static_assert(!kInteger || (!kNan && !kResidual), "the integer form has no NaN or residual");
  __m256 inv, zp, lo, hi;
  Int8RequantAvx2 integer;  // kInteger
  Int8AddAvx2 add;  // the residual add (kResidual)
  explicit Epilogue(const Int8ConvProblem& p)
      : inv(_mm256_set1_ps(p.inv_out_scale)), zp(_mm256_set1_ps(p.out_zero_point)),
        lo(_mm256_set1_ps(p.quant_min)), hi(_mm256_set1_ps(p.quant_max)), integer(p),
        add(p.residual_add) {}

  __m256i eight(const int32_t* acc, __m256 scale, __m256 bias) const {
    __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(load256(acc)), scale);
    if (kBias) y = _mm256_add_ps(y, bias);
    const __m256 sum = _mm256_add_ps(
        _mm256_round_ps(_mm256_mul_ps(y, inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zp);
    __m256 r = _mm256_min_ps(_mm256_max_ps(sum, lo), hi);
    // max/min return their second operand for NaN: mask by the sum itself.
    if (kNan) r = _mm256_andnot_ps(_mm256_cmp_ps(sum, sum, _CMP_UNORD_Q), r);
    return _mm256_cvttps_epi32(r);
  }

  // Rows [0, count) of cs ([row][16] int32, channels channel0 + row) into
  // out + row * plane (cols pixels each), two rows per pack; `residual`
  // (kResidual) is laid out like out.
  void strip(const Int8ConvProblem& p, const int32_t* cs, int64_t channel0, int64_t count,
             int8_t* out, const int8_t* residual, int64_t plane, int64_t cols) const {
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t m = 0; m < count; m += 2) {
      const int64_t m1 = std::min(m + 1, count - 1);  // an odd last row pairs with itself
      const __m256 s0 = _mm256_set1_ps(p.in_scale * p.w_scales[channel0 + m]);
      const __m256 s1 = _mm256_set1_ps(p.in_scale * p.w_scales[channel0 + m1]);
      const __m256 b0 = _mm256_set1_ps(kBias ? p.bias[channel0 + m] : 0.0f);
      const __m256 b1 = _mm256_set1_ps(kBias ? p.bias[channel0 + m1] : 0.0f);
      if (kInteger) {
        const __m256i v = integer.template thirty_two_bounded<kBias>(
            load256(cs + m * kStrip), load256(cs + m * kStrip + 8), s0, b0,
            load256(cs + m1 * kStrip), load256(cs + m1 * kStrip + 8), s1, b1);
        store_rows(_mm256_permutevar8x32_epi32(v, order), out + m * plane, out + m1 * plane, cols);
        continue;
      }
      __m256i v00 = eight(cs + m * kStrip, s0, b0), v01 = eight(cs + m * kStrip + 8, s0, b0);
      __m256i v10 = eight(cs + m1 * kStrip, s1, b1), v11 = eight(cs + m1 * kStrip + 8, s1, b1);
      if (kResidual) {
        // The add on the int32 lanes of the int8 values (in range: packing
        // them to int8 and back would change nothing).
        const int8_t* q0 = residual + m * plane;
        const int8_t* q1 = residual + m1 * plane;
        alignas(32) int8_t rows[2 * kStrip];
        if (cols < kStrip) {  // a partial strip: no loads past the tensor
          std::memset(rows, 0, sizeof(rows));  // lanes >= cols: computed, not stored
          std::memcpy(rows, q0, static_cast<size_t>(cols));
          std::memcpy(rows + kStrip, q1, static_cast<size_t>(cols));
          q0 = rows;
          q1 = rows + kStrip;
        }
        v00 = add.eight(v00, Int8AddAvx2::load8(q0));
        v01 = add.eight(v01, Int8AddAvx2::load8(q0 + 8));
        v10 = add.eight(v10, Int8AddAvx2::load8(q1));
        v11 = add.eight(v11, Int8AddAvx2::load8(q1 + 8));
      }
      const __m256i r0 = _mm256_packs_epi32(v00, v01), r1 = _mm256_packs_epi32(v10, v11);
      // Bytes [r0 0-3, 8-11, r1 0-3, 8-11 | r0 4-7, 12-15, r1 4-7, 12-15]
      // as dwords 0..7, reordered to [r0 0-15 | r1 0-15].
      const __m256i v = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(r0, r1), order);
      store_rows(v, out + m * plane, out + m1 * plane, cols);
    }
  }

  // v = [row o0's 16 int8 | row o1's]: the first `cols` of each.
  static void store_rows(__m256i v, int8_t* o0, int8_t* o1, int64_t cols) {
    if (cols == kStrip) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o0), _mm256_castsi256_si128(v));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o1), _mm256_extracti128_si256(v, 1));
    } else {
      alignas(32) int8_t tmp[2 * kStrip];
      store256(tmp, v);
      std::memcpy(o0, tmp, static_cast<size_t>(cols));
      std::memcpy(o1, tmp + kStrip, static_cast<size_t>(cols));
    }
  }
};

// Whether requantize() can meet a NaN for rows [row_begin, row_end) of
// group g's channels.
bool may_produce_nan(const Int8ConvProblem& p, int64_t g, int64_t row_begin, int64_t row_end) {
  if (!std::isfinite(p.inv_out_scale) || !(p.inv_out_scale > 0.0f)) return true;
  for (int64_t m = g * p.cout_g() + row_begin; m < g * p.cout_g() + row_end; ++m) {
    if (!std::isfinite(p.in_scale * p.w_scales[m])) return true;
    if (p.bias != nullptr && !std::isfinite(p.bias[m])) return true;
  }
  return false;
}

// Whether the integer epilogue gives requantize()'s result for rows
// [row_begin, row_end) of group g: |y * inv_out_scale| < 2^30 for every
// exact sum (|acc| <= K * 255 * 128), with 1 % to spare for float rounding,
// so vcvtps2dq never overflows. (Call only when may_produce_nan is false.)
bool integer_epilogue_fits(const Int8ConvProblem& p, int64_t g, int64_t row_begin,
                           int64_t row_end) {
  const double acc_max = static_cast<double>(p.k()) * 255.0 * 128.0;
  for (int64_t m = g * p.cout_g() + row_begin; m < g * p.cout_g() + row_end; ++m) {
    const double scale = std::fabs(static_cast<double>(p.in_scale * p.w_scales[m]));
    const double bias = p.bias != nullptr ? std::fabs(static_cast<double>(p.bias[m])) : 0.0;
    if ((acc_max * scale + bias) * p.inv_out_scale * 1.01 >= 1073741824.0) return false;
  }
  return true;
}

// Rows [row_begin, row_end) of the group's output channels, for each strip.
template <bool kBias, bool kNan, bool kResidual, bool kInteger>
void requantize_strips(const Int8ConvProblem& p, const int32_t* c, int64_t mpad, int64_t n,
                       int64_t g, int64_t strip_begin, int64_t strip_end, int64_t row_begin,
                       int64_t row_end) {
  const Epilogue<kBias, kNan, kResidual, kInteger> epilogue(p);
  const int64_t channel0 = g * p.cout_g() + row_begin;
  for (int64_t s = strip_begin; s < strip_end; ++s) {
    const int64_t p0 = s * kStrip, cols = std::min(kStrip, p.pixels() - p0);
    const int64_t at = (n * p.out_channels + channel0) * p.pixels() + p0;
    epilogue.strip(p, c + ((s - strip_begin) * mpad + row_begin) * kStrip, channel0,
                   row_end - row_begin, p.out + at,
                   kResidual ? p.residual + at : nullptr, p.pixels(), cols);
  }
}

using RequantizeStrips = void (*)(const Int8ConvProblem&, const int32_t*, int64_t, int64_t,
                                  int64_t, int64_t, int64_t, int64_t, int64_t);

template <bool kBias, bool kNan>
RequantizeStrips requantize_strips_for(bool residual) {
  return residual ? requantize_strips<kBias, kNan, true, false>
                  : requantize_strips<kBias, kNan, false, false>;
}

// The epilogue's instance for a bias or not, NaN masking or not, a residual
// or not, the integer form or not (integer: no NaN, no residual).
RequantizeStrips requantize_strips_for(bool bias, bool nan, bool residual, bool integer) {
  if (integer) {
    return bias ? requantize_strips<true, false, false, true>
                : requantize_strips<false, false, false, true>;
  }
  if (bias) {
    return nan ? requantize_strips_for<true, true>(residual)
               : requantize_strips_for<true, false>(residual);
  }
  return nan ? requantize_strips_for<false, true>(residual)
             : requantize_strips_for<false, false>(residual);
}

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

struct WorkerLayout {
  int64_t block, mpad;
  size_t a_bytes, b_bytes, rows_bytes, c_bytes;
};

WorkerLayout layout_of(const Int8ConvProblem& p, int64_t chunk_strips, bool shared_weights) {
  // chunk_strips blocks of packed strip, their int32 sums.
  WorkerLayout l;
  l.block = std::min(kInt8ConvBlockPairs, p.k_pairs());
  l.mpad = p.panels() * kRows;
  l.a_bytes = shared_weights
                  ? 0
                  : round_up_64(static_cast<size_t>(l.mpad * l.block * 2) * sizeof(int16_t));
  l.b_bytes =
      round_up_64(static_cast<size_t>(chunk_strips * l.block * 2 * kStrip) * sizeof(int16_t));
  l.rows_bytes = round_up_64(static_cast<size_t>(l.block * 2) * sizeof(const int8_t*));
  l.c_bytes = static_cast<size_t>(chunk_strips * l.mpad * kStrip) * sizeof(int32_t);
  return l;
}

}  // namespace

namespace {

template <bool kBias, bool kNan, bool kResidual, bool kInteger>
void requantize_run(const Int8ConvProblem& p, const int32_t* cs, int64_t channel0,
                    int64_t count, int64_t n, int64_t pixel0, int64_t cols) {
  const Epilogue<kBias, kNan, kResidual, kInteger> epilogue(p);
  const int64_t at = (n * p.out_channels + channel0) * p.pixels() + pixel0;
  epilogue.strip(p, cs, channel0, count, p.out + at, kResidual ? p.residual + at : nullptr,
                 p.pixels(), cols);
}

template <bool kBias, bool kNan>
Int8RequantizeRun requantize_run_for(bool residual) {
  return residual ? requantize_run<kBias, kNan, true, false>
                  : requantize_run<kBias, kNan, false, false>;
}

}  // namespace

Int8RequantizeRun int8_conv_requantize_run_for(const Int8ConvProblem& p) {
  // Every group's channels (group 0's rows [0, Cout) are all of them).
  const bool nan = may_produce_nan(p, 0, 0, p.out_channels), residual = p.residual != nullptr;
  if (!nan && !residual && integer_epilogue_fits(p, 0, 0, p.out_channels)) {
    return p.bias != nullptr ? requantize_run<true, false, false, true>
                             : requantize_run<false, false, false, true>;
  }
  if (p.bias != nullptr) {
    return nan ? requantize_run_for<true, true>(residual) : requantize_run_for<true, false>(residual);
  }
  return nan ? requantize_run_for<false, true>(residual) : requantize_run_for<false, false>(residual);
}

void int8_conv_widen_weights(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                             int16_t* widened) {
  const int64_t panel_elements = 2 * p.k_pairs() * kRows;
  for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
    widen_quads(p.weight + pn * p.panel_bytes(), p.k_pairs(), widened + pn * panel_elements);
  }
}

size_t int8_conv_avx2_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips,
                                   bool shared_weights) {
  const WorkerLayout l = layout_of(p, chunk_strips, shared_weights);
  return l.a_bytes + l.b_bytes + l.rows_bytes + l.c_bytes;
}

void int8_conv_avx2(const Int8ConvProblem& p, const Int8ConvSource& src, const int16_t* widened,
                    int64_t n, int64_t g, int64_t strip_begin, int64_t strip_end,
                    int64_t panel_begin, int64_t panel_end, void* worker_scratch) {
  const int64_t cout_g = p.cout_g(), pairs = p.k_pairs(), panels = p.panels();
  const WorkerLayout l = layout_of(p, strip_end - strip_begin, widened != nullptr);
  char* scratch = static_cast<char*>(worker_scratch);
  int16_t* a = reinterpret_cast<int16_t*>(scratch);
  int16_t* b = reinterpret_cast<int16_t*>(scratch + l.a_bytes);
  const int8_t** rows = reinterpret_cast<const int8_t**>(scratch + l.a_bytes + l.b_bytes);
  int32_t* c =
      reinterpret_cast<int32_t*>(scratch + l.a_bytes + l.b_bytes + l.rows_bytes);
  const int64_t panel_elements = 2 * pairs * kRows;
  const int8_t* group_weight = p.weight + g * panels * p.panel_bytes();
  const int8_t* group_planes = src.planes + g * p.cin_g() * src.plane_stride;
  StripPlan plans[kInt8ConvMaxChunkStrips];
  for (int64_t q0 = 0; q0 < pairs; q0 += l.block) {
    const int64_t block = std::min(l.block, pairs - q0);
    // A panel's block: `block` pairs of 6 rows, contiguous; a_block is
    // panel_begin's.
    const int16_t* a_block;
    int64_t a_panel_stride;
    if (widened != nullptr) {
      a_block = widened + ((g * panels + panel_begin) * pairs + q0) * 2 * kRows;
      a_panel_stride = panel_elements;
    } else {
      widen_block(p, group_weight, q0, block, panel_begin, panel_end, a);
      a_block = a;
      a_panel_stride = block * 2 * kRows;
    }
    row_bases(p, src, group_planes, 2 * q0, std::min(2 * (q0 + block), p.k()), rows);
    // Every strip's block first, then panel by panel over the strips: a
    // panel's block (4.5 KiB) stays in L1 while the strips' blocks (12 KiB
    // each) stream from L2, so the weights (up to 400 KiB per block for
    // Cout = 512) are read once per block, not once per strip.
    const int64_t strip_elements = block * 2 * kStrip;
    for (int64_t s = strip_begin; s < strip_end; ++s) {
      StripPlan& sp = plans[s - strip_begin];
      if (q0 == 0) plan_strip(p, src, s, &sp);
      pack_block(p, sp, rows, q0, block, b + (s - strip_begin) * strip_elements);
    }
    // A last strip of <= 8 pixels (a 7x7 map: 49 = 3 * 16 + 1) takes the
    // half-width tile, two panels at a time.
    const bool half_last = p.pixels() - (strip_end - 1) * kStrip <= kStrip / 2;
    const int64_t full_end = half_last ? strip_end - 1 : strip_end;
    for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
      const int32_t* panel =
          reinterpret_cast<const int32_t*>(a_block + (pn - panel_begin) * a_panel_stride);
      const int64_t rows_left = cout_g - pn * kRows;
      for (int64_t s = strip_begin; s < full_end; ++s) {
        const int16_t* bs = b + (s - strip_begin) * strip_elements;
        int32_t* cs = c + ((s - strip_begin) * l.mpad + pn * kRows) * kStrip;
        if (rows_left <= 3) {
          int8_tile::tile_tail(panel, bs, block, rows_left, cs, q0 > 0);
        } else {
          int8_tile::tile(panel, bs, block, cs, q0 > 0);
        }
      }
      if (half_last && (pn - panel_begin) % 2 == 0) {
        const int64_t s = strip_end - 1;
        const bool pair = pn + 1 < panel_end;
        const int32_t* a1 = pair ? panel + a_panel_stride / 2 : panel;
        int8_tile::tile_half(panel, a1, b + (s - strip_begin) * strip_elements, block,
                             std::min<int64_t>(pair ? 2 * kRows : kRows, rows_left),
                             c + ((s - strip_begin) * l.mpad + pn * kRows) * kStrip, q0 > 0);
      }
    }
  }
  const int64_t row_begin = panel_begin * kRows;
  const int64_t row_end = std::min(cout_g, panel_end * kRows);
  const bool nan = may_produce_nan(p, g, row_begin, row_end), residual = p.residual != nullptr;
  const bool integer = !nan && !residual && integer_epilogue_fits(p, g, row_begin, row_end);
  requantize_strips_for(p.bias != nullptr, nan, residual, integer)(
      p, c, l.mpad, n, g, strip_begin, strip_end, row_begin, row_end);
}

}  // namespace quantized
}  // namespace torchedge
