// AVX-512 VNNI path of the int8 convolution (contract: support/int8_conv.h),
// entered only when quant_isa() reports kAvx512Vnni. The same strips, K
// blocks, chunks and thread split as the AVX2 path (int8_conv_avx2.cpp);
// the products are vpdpbusd's (u8 x s8, four k summed per int32 lane: 64
// multiply-adds per zmm instruction against 16 per ymm vpmaddwd + vpaddd).
//  - u8 operand: the activations shifted to x + 128 (xor 0x80); with
//      sum_k (x - zx) w = sum_k (x + 128) w - (zx + 128) sum_k w
//    each row's accumulators start at -(zx + 128) * wsum[m] (0 for the
//    usual zx = -128 of a ReLU's output: no row sums needed), and the sums
//    are the exact int32 of the AVX2 and scalar paths (padding pixels hold
//    zx and add nothing). Every partial sum is some
//    sum (u - zx - 128) w - (zx + 128) * (the rest of the w), so stays
//    within K * 255 * 128 < 2^31 (kMaxInt8ConvK): vpdpbusd never wraps.
//  - weights: the panels as stored ([panel][quad][6 rows][4 k]), read in
//    place; the row sums, when needed, from the program's stored
//    weight_sums, or else once per call into shared scratch
//    (int8_conv_vnni_row_sums);
//  - pack: im2col rows 4q .. 4q + 3 of a strip (support/x86/
//    int8_conv_strips_x86.h) interleaved bytewise into [16 px][4 k] u8,
//    64 bytes per quad;
//  - tile: 6 rows x 16 pixels, one zmm accumulator per row and strip, the
//    row's 4 weights broadcast from memory; four strips at a time (24
//    vpdpbusd per 4 loads and 6 broadcasts; two at a time, 12 per 2 and 6,
//    summed 10.7 -> 9.6 ms over int8_conv_bench's 39 layers, the ResNet
//    layers 1.1-1.2x, min of 4 alternating runs), then two, three for an odd
//    count (a 7x7 map's 3 strips: the one-strip tile left over was ~40 % of
//    ResNet-18's 512 @7 layer; int8_conv_bench "@7->", 1 thread, min of
//    alternating runs: 512 @7 0.92 -> 0.72 ms, 2048->512 0.40 -> 0.31); a
//    last strip of <= 4 pixels (7x7 and 14x14 maps) on 4 lanes;
//  - epilogue: requantize() of support/int8_gemm.h straight from the last
//    K block's accumulators, one zmm per output channel and strip (16
//    pixels), the same float operations in the same order as the AVX2
//    epilogue (mul, add, mul, round to nearest even, add, clamp, NaN -> 0),
//    then with a residual (conv2d_add_int8) the add's formula
//    (support/int8_add.h, as Int8AddAvx2 runs it), so both paths write the
//    same bits; vpmovsdb packs and masked loads/stores handle a partial
//    strip. (MobileNetV2 int8: the AVX2 epilogue over the int32 sums was 22%
//    of the time, as much as the vpdpbusd tiles; ResNet-50's residual one
//    12%.)
// Compiled with -mavx512f/bw/vl/vnni (plus AVX2, FMA).
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -Wmaybe-uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kStrip = kInt8ConvStrip;
constexpr int64_t kRows = kInt8ConvPanelRows;

#include "kernels/quantized/support/x86/int8_conv_strips_x86.h"

#include "kernels/quantized/support/x86/int8_conv_quads_x86.h"

// acc += vpdpbusd(x, w), the accumulator tied to its register. With
// _mm512_dpbusd_epi32 GCC 12 copied every accumulator into a scratch
// register and back around each vpdpbusd of the tile loop (24 moves per 12
// products, and a stack operand). int8_conv_bench, 1 thread, sum over its
// 39 layers (min of alternating runs): 14.7 -> 12.0 ms; 2 threads 12.0 ->
// 7.5. (Keeping the tiles out of line as well measured 13.1 / 9.5: the
// epilogue's constants are then reloaded per tile.)
inline __m512i dpbusd(__m512i acc, __m512i x, __m512i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
  return acc;
}

inline __m128i dpbusd128(__m128i acc, __m128i x, __m128i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
  return acc;
}

inline __m512i broadcast4(const int8_t* a) {
  int32_t v;
  std::memcpy(&v, a, sizeof(v));
  return _mm512_set1_epi32(v);
}

// requantize() of one panel's rows straight from the accumulators of the
// last K block, and with a residual (conv2d_add_int8) support/int8_add.h's
// formula on that value and the residual's (a = the conv value, b = the
// residual): the float operations of the AVX2 epilogue and Int8AddAvx2, in
// their order, on 16 lanes.
struct PanelEpilogue {
  __m512 scale[kRows], bias[kRows], inv, zp, lo, hi;
  bool has_bias, nan;
  int64_t rows;     // the panel's rows inside Cout_g (<= 6)
  int8_t* out;      // row 0, pixel 0 of the output planes
  const int8_t* residual;  // laid out like out, or nullptr
  int64_t pixels;   // pixels per plane (the row stride of out)
  // The residual add's parameters (residual != nullptr).
  __m512 a_scale, a_zp, b_scale, b_zp, add_inv, add_zp, add_lo, add_hi;
};

inline __m512i residual_add16(const PanelEpilogue& e, __m512i a32, __m512i b32) {
  const __m512 fa = _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(a32), e.a_zp), e.a_scale);
  const __m512 fb = _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(b32), e.b_zp), e.b_scale);
  const __m512 r = _mm512_add_ps(
      _mm512_roundscale_ps(_mm512_mul_ps(_mm512_add_ps(fa, fb), e.add_inv),
                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
      e.add_zp);
  const __m512 clamped = _mm512_min_ps(_mm512_max_ps(r, e.add_lo), e.add_hi);
  return _mm512_cvttps_epi32(_mm512_maskz_mov_ps(_mm512_cmp_ps_mask(r, r, _CMP_ORD_Q), clamped));
}

inline void requantize16(const PanelEpilogue& e, int r, __m512i acc, int64_t strip) {
  __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), e.scale[r]);
  if (e.has_bias) y = _mm512_add_ps(y, e.bias[r]);
  const __m512 sum = _mm512_add_ps(
      _mm512_roundscale_ps(_mm512_mul_ps(y, e.inv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
      e.zp);
  __m512 v = _mm512_min_ps(_mm512_max_ps(sum, e.lo), e.hi);
  if (e.nan) v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(sum, sum, _CMP_ORD_Q), v);
  const int64_t p0 = strip * kStrip, cols = std::min(kStrip, e.pixels - p0);
  const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1);
  const int64_t at = r * e.pixels + p0;
  __m512i q = _mm512_cvttps_epi32(v);
  if (e.residual != nullptr) {
    q = residual_add16(e, q, _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(mask, e.residual + at)));
  }
  _mm_mask_storeu_epi8(e.out + at, mask, _mm512_cvtsepi32_epi8(q));
}

// c[s][0..6)[0..16) for the strips s < kStrips (b: their packed blocks,
// b_stride apart; c: [strip][mpad][16], c_stride apart) = init[row] (the
// first K block) or c (later blocks) + the block's sums of panel quads a;
// with an epilogue e (the last K block), requantized into the output
// instead (strip: the first strip's index in the output plane).
template <int kStrips>
void tile(const int8_t* a, const uint8_t* b, int64_t b_stride, int64_t quads,
          const int32_t* init, int32_t* c, int64_t c_stride, const PanelEpilogue* e,
          int64_t strip) {
  __m512i acc[kStrips][kRows];
  for (int s = 0; s < kStrips; ++s) {
    for (int r = 0; r < kRows; ++r) {
      acc[s][r] = init != nullptr ? _mm512_set1_epi32(init[r])
                                  : _mm512_loadu_si512(c + s * c_stride + r * kStrip);
    }
  }
  for (int64_t q = 0; q < quads; ++q, a += kQuadBytes) {
    __m512i x[kStrips];
    for (int s = 0; s < kStrips; ++s) x[s] = _mm512_loadu_si512(b + s * b_stride + q * 64);
    for (int r = 0; r < kRows; ++r) {
      const __m512i w = broadcast4(a + 4 * r);
      for (int s = 0; s < kStrips; ++s) acc[s][r] = dpbusd(acc[s][r], x[s], w);
    }
  }
  if (e != nullptr) {
    for (int s = 0; s < kStrips; ++s) {
      for (int r = 0; r < e->rows; ++r) requantize16(*e, r, acc[s][r], strip + s);
    }
    return;
  }
  for (int s = 0; s < kStrips; ++s) {
    for (int r = 0; r < kRows; ++r) _mm512_storeu_si512(c + s * c_stride + r * kStrip, acc[s][r]);
  }
}

// A last strip of at most 4 pixels (7x7 maps: 49 = 3 x 16 + 1; 14x14:
// 196 = 12 x 16 + 4): the same sums on 4 lanes (xmm), a quarter of tile<1>'s
// work. Lanes 4-15 of c are not written (the epilogue stores only the
// strip's pixels).
void tile_narrow(const int8_t* a, const uint8_t* b, int64_t quads, const int32_t* init,
                 int32_t* c, const PanelEpilogue* e, int64_t strip) {
  __m128i acc[kRows];
  for (int r = 0; r < kRows; ++r) {
    acc[r] = init != nullptr ? _mm_set1_epi32(init[r])
                             : _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + r * kStrip));
  }
  for (int64_t q = 0; q < quads; ++q, a += kQuadBytes) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + q * 64));
    for (int r = 0; r < kRows; ++r) {
      int32_t w;
      std::memcpy(&w, a + 4 * r, sizeof(w));
      acc[r] = dpbusd128(acc[r], x, _mm_set1_epi32(w));
    }
  }
  if (e != nullptr) {
    for (int r = 0; r < e->rows; ++r) requantize16(*e, r, _mm512_zextsi128_si512(acc[r]), strip);
    return;
  }
  for (int r = 0; r < kRows; ++r) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(c + r * kStrip), acc[r]);
  }
}

// Whether requantize() can meet a NaN for output channels [begin, end): a
// non-finite scale product, bias or inverse output scale.
bool may_produce_nan(const Int8ConvProblem& p, int64_t begin, int64_t end) {
  if (!std::isfinite(p.inv_out_scale) || !(p.inv_out_scale > 0.0f)) return true;
  for (int64_t m = begin; m < end; ++m) {
    if (!std::isfinite(p.in_scale * p.w_scales[m])) return true;
    if (p.bias != nullptr && !std::isfinite(p.bias[m])) return true;
  }
  return false;
}

}  // namespace

void int8_conv_vnni_row_sums(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                             int32_t* sums) {
  // vpdpbusd with u8 ones over two quads (48 bytes) at a time: lane
  // (quad j, row r) = j * 6 + r sums that quad's 4 weights of row r.
  const __m512i ones = _mm512_set1_epi8(1);
  const int64_t quads = p.k_quads();
  for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
    const int8_t* panel = p.weight + pn * p.panel_bytes();
    __m512i acc = _mm512_setzero_si512();
    for (int64_t q = 0; q < quads; q += 2) {
      const int64_t bytes = std::min<int64_t>(2, quads - q) * kQuadBytes;
      const __mmask64 mask = (uint64_t{1} << bytes) - 1;
      acc = _mm512_dpbusd_epi32(acc, ones, _mm512_maskz_loadu_epi8(mask, panel + q * kQuadBytes));
    }
    alignas(64) int32_t lanes[16];
    _mm512_store_si512(lanes, acc);
    for (int64_t r = 0; r < kRows; ++r) sums[pn * kRows + r] = lanes[r] + lanes[r + kRows];
  }
}

size_t int8_conv_avx512vnni_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips) {
  return worker_bytes_of(p, chunk_strips);
}

void int8_conv_avx512vnni(const Int8ConvProblem& p, const Int8ConvSource& src,
                          const int32_t* row_sums, int64_t n, int64_t g, int64_t strip_begin,
                          int64_t strip_end, int64_t panel_begin, int64_t panel_end,
                          void* worker_scratch) {
  const int64_t quads = p.k_quads(), chunk = strip_end - strip_begin;
  QuadChunk qc(p, src, row_sums, g, strip_begin, strip_end, worker_scratch);
  const int64_t b_stride = qc.b_stride, c_stride = qc.c_stride;
  uint8_t* b = qc.b;
  int32_t* c = qc.c;
  // Strips [0, wide) take the 16-lane tiles; a last strip of <= 4 pixels
  // the narrow one.
  const int64_t wide = p.pixels() - (strip_end - 1) * kStrip <= 4 ? chunk - 1 : chunk;
  // The last K block's tiles requantize their accumulators themselves (no
  // int32 round trip through c).
  PanelEpilogue epilogue;
  {
    const int64_t m0 = g * p.cout_g() + panel_begin * kRows;
    epilogue.nan = may_produce_nan(p, m0, g * p.cout_g() + std::min(p.cout_g(), panel_end * kRows));
    epilogue.has_bias = p.bias != nullptr;
    epilogue.inv = _mm512_set1_ps(p.inv_out_scale);
    epilogue.zp = _mm512_set1_ps(p.out_zero_point);
    epilogue.lo = _mm512_set1_ps(p.quant_min);
    epilogue.hi = _mm512_set1_ps(p.quant_max);
    epilogue.pixels = p.pixels();
    const Int8AddProblem& add = p.residual_add;
    epilogue.a_scale = _mm512_set1_ps(static_cast<float>(add.a_scale));
    epilogue.a_zp = _mm512_set1_ps(static_cast<float>(add.a_zero_point));
    epilogue.b_scale = _mm512_set1_ps(static_cast<float>(add.b_scale));
    epilogue.b_zp = _mm512_set1_ps(static_cast<float>(add.b_zero_point));
    epilogue.add_inv = _mm512_set1_ps(add.out_params.inv_scale);
    epilogue.add_zp = _mm512_set1_ps(add.out_params.zero_point);
    epilogue.add_lo = _mm512_set1_ps(add.out_params.quant_min);
    epilogue.add_hi = _mm512_set1_ps(add.out_params.quant_max);
  }
  for (int64_t q0 = 0; q0 < quads; q0 += qc.l.block) {
    const int64_t block = std::min(qc.l.block, quads - q0);
    qc.pack(p, src, q0, block);
    for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
      const int8_t* a = qc.group_quads + (pn * quads + q0) * kQuadBytes;
      int32_t init[kRows];
      qc.panel_init(pn, init);
      const int32_t* first = q0 == 0 ? init : nullptr;
      const PanelEpilogue* e = nullptr;
      if (q0 + block == quads) {
        epilogue.rows = std::min(kRows, p.cout_g() - pn * kRows);
        const int64_t channel = g * p.cout_g() + pn * kRows;
        for (int64_t r = 0; r < epilogue.rows; ++r) {
          epilogue.scale[r] = _mm512_set1_ps(p.in_scale * p.w_scales[channel + r]);
          epilogue.bias[r] = _mm512_set1_ps(p.bias != nullptr ? p.bias[channel + r] : 0.0f);
        }
        const int64_t at = (n * p.out_channels + channel) * p.pixels();
        epilogue.out = p.out + at;
        epilogue.residual = p.residual != nullptr ? p.residual + at : nullptr;
        e = &epilogue;
      }
      int64_t s = 0;
      // An odd count of 3 or more starts with three strips at once (a 7x7
      // map's 49 pixels: 3 strips + 1 pixel), so no strip runs alone on a
      // one-strip tile, whose 6 vpdpbusd per quad wait on 7 loads.
      if (wide % 2 == 1 && wide >= 3) {
        tile<3>(a, b, b_stride, block, first, c + pn * kRows * kStrip, c_stride, e, strip_begin);
        s = 3;
      }
      for (; s + 4 <= wide; s += 4) {
        tile<4>(a, b + s * b_stride, b_stride, block, first, c + s * c_stride + pn * kRows * kStrip,
                c_stride, e, strip_begin + s);
      }
      for (; s + 2 <= wide; s += 2) {
        tile<2>(a, b + s * b_stride, b_stride, block, first, c + s * c_stride + pn * kRows * kStrip,
                c_stride, e, strip_begin + s);
      }
      if (s < wide) {
        tile<1>(a, b + s * b_stride, b_stride, block, first, c + s * c_stride + pn * kRows * kStrip,
                c_stride, e, strip_begin + s);
      }
      if (wide < chunk) {
        tile_narrow(a, b + wide * b_stride, block, first, c + wide * c_stride + pn * kRows * kStrip,
                    e, strip_begin + wide);
      }
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
