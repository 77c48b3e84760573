// AVX-512 VNNI path of the int8 convolution (contract: support/int8_conv.h),
// entered only when quant_isa() reports kAvx512Vnni. The same strips, K
// blocks, chunks and thread split as the AVX2 path (int8_conv_avx2.cpp);
// the products are vpdpbusd's (u8 x s8, four k summed per int32 lane: 64
// multiply-adds per zmm instruction against 16 per ymm vpmaddwd + vpaddd).
//  - u8 operand: the activations shifted to x + 128 (xor 0x80); with
//      sum_k (x - zx) w = sum_k (x + 128) w - (zx + 128) sum_k w
//    each row's accumulators start at -(zx + 128) * wsum[m], and the sums
//    are the exact int32 of the AVX2 and scalar paths (padding pixels hold
//    zx and add nothing). Every partial sum is some
//    sum (u - zx - 128) w - (zx + 128) * (the rest of the w), so stays
//    within K * 255 * 128 < 2^31 (kMaxInt8ConvK): vpdpbusd never wraps.
//  - weights: once per call the panel layout (K in pairs) is regrouped into
//    quads, [panel][quad][6 rows][4 k] int8, with each row's sum
//    (int8_conv_vnni_prepare; the workers share it, like the AVX2 path's
//    widened copy, at half its bytes);
//  - pack: im2col rows 4q .. 4q + 3 of a strip (support/x86/
//    int8_conv_strips_x86.h) interleaved bytewise into [16 px][4 k] u8,
//    64 bytes per quad;
//  - tile: 6 rows x 16 pixels, one zmm accumulator per row and strip, the
//    row's 4 weights broadcast from memory; two strips at a time (12
//    independent vpdpbusd chains cover its latency);
//  - epilogue: the AVX2 requantizer (int8_conv_requantize_run_for), so both
//    paths write the same bits.
// Compiled with -mavx512f/bw/vl/vnni (plus AVX2, FMA).
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kStrip = kInt8ConvStrip;
constexpr int64_t kRows = kInt8ConvPanelRows;
constexpr int64_t kQuadBytes = 4 * kRows;  // one quad of a panel: 6 rows x 4 k

#include "kernels/quantized/support/x86/int8_conv_strips_x86.h"

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

int64_t k_quads(const Int8ConvProblem& p) { return (p.k() + 3) / 4; }

struct Prepared {
  const int8_t* quads;  // [groups * panels][k_quads][6][4]
  const int32_t* sums;  // [groups * panels][6]
};

size_t quads_bytes(const Int8ConvProblem& p) {
  return round_up_64(static_cast<size_t>(p.groups * p.panels() * k_quads(p) * kQuadBytes));
}

Prepared prepared_of(const Int8ConvProblem& p, const void* prepared) {
  const char* base = static_cast<const char*>(prepared);
  return Prepared{reinterpret_cast<const int8_t*>(base),
                  reinterpret_cast<const int32_t*>(base + quads_bytes(p))};
}

// Rows k .. k + 3 of a strip (16 int8 each) into one quad of b: 16 pixels x
// 4 k, shifted to u8 (x + 128).
inline void store_quad(__m128i r0, __m128i r1, __m128i r2, __m128i r3, uint8_t* b) {
  const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
  const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i lo = _mm256_set_m128i(_mm_unpackhi_epi16(lo01, lo23), _mm_unpacklo_epi16(lo01, lo23));
  const __m256i hi = _mm256_set_m128i(_mm_unpackhi_epi16(hi01, hi23), _mm_unpacklo_epi16(hi01, hi23));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b), _mm256_xor_si256(lo, flip));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + 32), _mm256_xor_si256(hi, flip));
}

// The strip's quads [q0, q0 + block) into b ([quad][16][4] u8). rows[k -
// 4 q0]: the base of row k (row_bases). Rows k >= K meet zero weights: any
// value will do.
void pack_block(const Int8ConvProblem& p, const StripPlan& sp, const int8_t* const* rows,
                int64_t q0, int64_t block, uint8_t* b) {
  const int64_t rows_left = p.k() - 4 * q0;
  const int64_t full = std::min(block, rows_left / 4);
  int64_t q = 0;
  if (sp.mode == RowMode::kStride1 && sp.nseg == 1) {
    const int64_t off = sp.seg_offset[0];
    for (; q < full; ++q) {
      const int8_t* const* r = rows + 4 * q;
      store_quad(load128(r[0] + off), load128(r[1] + off), load128(r[2] + off),
                 load128(r[3] + off), b + q * 64);
    }
  } else {
    for (; q < full; ++q) {
      const int8_t* const* r = rows + 4 * q;
      store_quad(strip_row(sp, r[0]), strip_row(sp, r[1]), strip_row(sp, r[2]),
                 strip_row(sp, r[3]), b + q * 64);
    }
  }
  for (; q < block; ++q) {  // the last quad, when K % 4 != 0
    __m128i r[4];
    for (int64_t i = 0; i < 4; ++i) {
      r[i] = 4 * q + i < rows_left ? strip_row(sp, rows[4 * q + i]) : _mm_setzero_si128();
    }
    store_quad(r[0], r[1], r[2], r[3], b + q * 64);
  }
}

inline __m512i broadcast4(const int8_t* a) {
  int32_t v;
  std::memcpy(&v, a, sizeof(v));
  return _mm512_set1_epi32(v);
}

// c[s][0..6)[0..16) for the strips s < kStrips (b: their packed blocks,
// b_stride apart; c: [strip][mpad][16], c_stride apart) = init[row] (the
// first K block) or c (later blocks) + the block's sums of panel quads a.
template <int kStrips>
void tile(const int8_t* a, const uint8_t* b, int64_t b_stride, int64_t quads,
          const int32_t* init, int32_t* c, int64_t c_stride) {
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
      for (int s = 0; s < kStrips; ++s) acc[s][r] = _mm512_dpbusd_epi32(acc[s][r], x[s], w);
    }
  }
  for (int s = 0; s < kStrips; ++s) {
    for (int r = 0; r < kRows; ++r) _mm512_storeu_si512(c + s * c_stride + r * kStrip, acc[s][r]);
  }
}

struct WorkerLayout {
  int64_t block, mpad;
  size_t b_bytes, rows_bytes, c_bytes;
};

WorkerLayout layout_of(const Int8ConvProblem& p, int64_t chunk_strips) {
  WorkerLayout l;
  l.block = std::min(kInt8ConvBlockPairs, k_quads(p));  // 192 quads: 12 KiB per strip
  l.mpad = p.panels() * kRows;
  l.b_bytes = round_up_64(static_cast<size_t>(chunk_strips * l.block * 64));
  l.rows_bytes = round_up_64(static_cast<size_t>(l.block * 4) * sizeof(const int8_t*));
  l.c_bytes = static_cast<size_t>(chunk_strips * l.mpad * kStrip) * sizeof(int32_t);
  return l;
}

}  // namespace

size_t int8_conv_vnni_prepared_bytes(const Int8ConvProblem& p) {
  return quads_bytes(p) + round_up_64(static_cast<size_t>(p.groups * p.panels() * kRows) *
                                      sizeof(int32_t));
}

void int8_conv_vnni_prepare(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                            void* prepared) {
  // Per two quads (four pairs, 24 int16 of (k, k + 1) byte pairs in the
  // panel layout [pair][row]) one permutation to [quad][row][pair of
  // pairs]; lanes past the panel's pairs load as 0. The row sums come from
  // vpdpbusd with u8 ones: lane (quad, row) sums that quad's 4 weights.
  alignas(64) int16_t index[32];
  for (int j = 0; j < 2; ++j) {
    for (int r = 0; r < kRows; ++r) {
      for (int h = 0; h < 2; ++h) index[j * 12 + r * 2 + h] = static_cast<int16_t>((2 * j + h) * kRows + r);
    }
  }
  for (int i = 24; i < 32; ++i) index[i] = 31;  // a lane the masked load zeroes
  const __m512i perm = _mm512_load_si512(index);
  const __m512i ones = _mm512_set1_epi8(1);
  const int64_t pairs = p.k_pairs(), quads = k_quads(p);
  const int64_t in_panel = 2 * pairs * kRows, out_panel = quads * kQuadBytes;
  char* base = static_cast<char*>(prepared);
  int8_t* out_quads = reinterpret_cast<int8_t*>(base);
  int32_t* out_sums = reinterpret_cast<int32_t*>(base + quads_bytes(p));
  for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
    const int8_t* in = p.weight + pn * in_panel;
    int8_t* out = out_quads + pn * out_panel;
    __m512i sums = _mm512_setzero_si512();
    for (int64_t q = 0; q < quads; q += 2) {
      const int64_t in_pairs = std::min<int64_t>(4, pairs - 2 * q);
      const int64_t out_quads_here = std::min<int64_t>(2, quads - q);
      const __mmask32 load_mask = static_cast<__mmask32>((uint64_t{1} << (in_pairs * kRows)) - 1);
      const __mmask32 store_mask =
          static_cast<__mmask32>((uint64_t{1} << (out_quads_here * 2 * kRows)) - 1);
      const __m512i v = _mm512_permutexvar_epi16(
          perm, _mm512_maskz_loadu_epi16(load_mask, in + 2 * q * 2 * kRows));
      _mm512_mask_storeu_epi16(out + q * kQuadBytes, store_mask, v);
      sums = _mm512_dpbusd_epi32(sums, ones, v);
    }
    alignas(64) int32_t lanes[16];
    _mm512_store_si512(lanes, sums);
    for (int64_t r = 0; r < kRows; ++r) out_sums[pn * kRows + r] = lanes[r] + lanes[r + kRows];
  }
}

size_t int8_conv_avx512vnni_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips) {
  const WorkerLayout l = layout_of(p, chunk_strips);
  return l.b_bytes + l.rows_bytes + l.c_bytes;
}

void int8_conv_avx512vnni(const Int8ConvProblem& p, const Int8ConvSource& src,
                          const void* prepared, int64_t n, int64_t g, int64_t strip_begin,
                          int64_t strip_end, int64_t panel_begin, int64_t panel_end,
                          void* worker_scratch) {
  const int64_t quads = k_quads(p), panels = p.panels(), chunk = strip_end - strip_begin;
  const WorkerLayout l = layout_of(p, chunk);
  char* scratch = static_cast<char*>(worker_scratch);
  uint8_t* b = reinterpret_cast<uint8_t*>(scratch);
  const int8_t** rows = reinterpret_cast<const int8_t**>(scratch + l.b_bytes);
  int32_t* c = reinterpret_cast<int32_t*>(scratch + l.b_bytes + l.rows_bytes);
  const Prepared w = prepared_of(p, prepared);
  const int8_t* group_quads = w.quads + g * panels * quads * kQuadBytes;
  const int32_t* group_sums = w.sums + g * panels * kRows;
  const int8_t* group_planes = src.planes + g * p.cin_g() * src.plane_stride;
  const int32_t shift = p.in_zero_point + 128;
  StripPlan plans[kInt8ConvMaxChunkStrips];
  const int64_t b_stride = l.block * 64, c_stride = l.mpad * kStrip;
  for (int64_t q0 = 0; q0 < quads; q0 += l.block) {
    const int64_t block = std::min(l.block, quads - q0);
    row_bases(p, src, group_planes, 4 * q0, std::min(4 * (q0 + block), p.k()), rows);
    for (int64_t s = strip_begin; s < strip_end; ++s) {
      StripPlan& sp = plans[s - strip_begin];
      if (q0 == 0) plan_strip(p, src, s, &sp);
      pack_block(p, sp, rows, q0, block, b + (s - strip_begin) * b_stride);
    }
    for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
      const int8_t* a = group_quads + (pn * quads + q0) * kQuadBytes;
      int32_t init[kRows];
      for (int64_t r = 0; r < kRows; ++r) init[r] = -shift * group_sums[pn * kRows + r];
      const int32_t* first = q0 == 0 ? init : nullptr;
      int64_t s = 0;
      for (; s + 2 <= chunk; s += 2) {
        tile<2>(a, b + s * b_stride, b_stride, block, first, c + s * c_stride + pn * kRows * kStrip,
                c_stride);
      }
      if (s < chunk) {
        tile<1>(a, b + s * b_stride, b_stride, block, first, c + s * c_stride + pn * kRows * kStrip,
                c_stride);
      }
    }
  }
  const Int8RequantizeRun requantize = int8_conv_requantize_run_for(p);
  const int64_t row_begin = panel_begin * kRows;
  const int64_t row_end = std::min(p.cout_g(), panel_end * kRows);
  for (int64_t s = strip_begin; s < strip_end; ++s) {
    const int64_t p0 = s * kStrip;
    requantize(p, c + (s - strip_begin) * c_stride + row_begin * kStrip,
               g * p.cout_g() + row_begin, row_end - row_begin, n, p0,
               std::min(kStrip, p.pixels() - p0));
  }
}

}  // namespace quantized
}  // namespace torchedge
