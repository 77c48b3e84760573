// AVX-512 VNNI loops of linear_8da4w_packed (support/int4_packed.h):
// per record one 64-byte load per 8 k of 16 rows, nibbles split by and /
// shift, vpdpbusd against the activation quads broadcast from memory, the
// nibbles' byte sums accumulated for Su, and the group's correction and
// scale on whole 16-row vectors. MR activation rows share each unpacked
// record (M = 1: decode's GEMV; larger M: prefill, the record stays in L1
// across the row tiles). Compiled with -mavx512f/bw/vl/vnni; entered only
// when quant_isa() is kAvx512Vnni.
#include <immintrin.h>

#include <cstring>

#include "kernels/quantized/support/int4_packed.h"

// GCC 12's AVX-512 headers build masked intrinsics on undefined vectors,
// which -Wmaybe-uninitialized reports (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"



namespace torchedge {
namespace quantized {
namespace {

// How far ahead of its loads the decode loop prefetches the weight stream
// (llm_linear_bench, M = 1 cold, 1 thread: 1 KiB no gain, 4 KiB 10-15 %,
// 8 KiB 13-18 % faster than the hardware prefetcher alone; prefetching
// past the end of the weight never faults).
constexpr int64_t kPrefetchBytes = 8192;

inline __m512i broadcast_quad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// Rows [m0, m0 + MR) of x against row blocks nb .. nb + NB - 1: each
// activation quad broadcast serves NB vpdpbusd (16 output rows each), each
// unpacked record MR rows. Accumulator chains: one per (row, block), two
// when there are few (vpdpbusd's latency: about ten in flight keep both
// ports busy).
template <int MR, int NB>
void rows_of_blocks(const Int8Rows& x, const Int4PackedWeight& w, const float* bias, float* out,
                    int64_t nb, int64_t m0) {
  constexpr int CH = MR * NB >= 6 ? 1 : 2;
  const int64_t k = w.k, g = w.group_size, groups = w.groups(), subs = g / kInt4PackedSubBlock;
  const int64_t record_stride = groups * w.record_bytes();  // between row blocks
  const __m512i low4 = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  __m512 facc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int j = 0; j < NB; ++j) facc[r][j] = _mm512_setzero_ps();
  }
  for (int64_t gi = 0; gi < groups; ++gi) {
    const uint8_t* rec = w.record(nb, gi);
    __m512i acc[MR][NB][CH];
    for (int r = 0; r < MR; ++r) {
      const int64_t m = m0 + r;
      const __m512i c = _mm512_set1_epi32(8 * (static_cast<int32_t>(g) * x.zero_points[m] -
                                               x.group_sums[m * groups + gi]));
      for (int j = 0; j < NB; ++j) {
        acc[r][j][0] = c;
        if (CH == 2) acc[r][j][CH - 1] = _mm512_setzero_si512();
      }
    }
    __m512i su[NB];
    for (int j = 0; j < NB; ++j) su[j] = _mm512_setzero_si512();
    for (int64_t s = 0; s < subs; ++s) {
      const uint8_t* sb = rec + kInt4PackedHeader + 256 * s;
      const int64_t k0 = gi * g + kInt4PackedSubBlock * s;
      __m512i bytes[NB];
      for (int j = 0; j < NB; ++j) bytes[j] = _mm512_setzero_si512();
      if (MR == 1) {  // decode: the weights come from DRAM once
        for (int i = 0; i < 4; ++i) {
          _mm_prefetch(reinterpret_cast<const char*>(sb + kPrefetchBytes + 64 * i), _MM_HINT_T0);
        }
      }
      for (int i = 0; i < 4; ++i) {
        __m512i lo[NB], hi[NB];
        for (int j = 0; j < NB; ++j) {
          const __m512i p = _mm512_loadu_si512(sb + j * record_stride + 64 * i);
          lo[j] = _mm512_and_si512(p, low4);
          hi[j] = _mm512_and_si512(_mm512_srli_epi16(p, 4), low4);
          bytes[j] = _mm512_add_epi8(bytes[j], _mm512_add_epi8(lo[j], hi[j]));
        }
        for (int r = 0; r < MR; ++r) {
          const int8_t* xr = x.q + (m0 + r) * k + k0 + 8 * i;
          const __m512i first = broadcast_quad(xr), second = broadcast_quad(xr + 4);
          for (int j = 0; j < NB; ++j) {
            acc[r][j][0] = _mm512_dpbusd_epi32(acc[r][j][0], lo[j], first);
            acc[r][j][CH - 1] = _mm512_dpbusd_epi32(acc[r][j][CH - 1], hi[j], second);
          }
        }
      }
      // bytes <= 8 * 15: the byte sums do not carry into the next lane.
      for (int j = 0; j < NB; ++j) su[j] = _mm512_dpbusd_epi32(su[j], bytes[j], ones);
    }
    for (int j = 0; j < NB; ++j) {
      const __m512 scales = _mm512_loadu_ps(reinterpret_cast<const float*>(rec + j * record_stride));
      for (int r = 0; r < MR; ++r) {
        __m512i dot = CH == 2 ? _mm512_add_epi32(acc[r][j][0], acc[r][j][CH - 1]) : acc[r][j][0];
        dot = _mm512_sub_epi32(dot, _mm512_mullo_epi32(su[j], _mm512_set1_epi32(x.zero_points[m0 + r])));
        facc[r][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), scales, facc[r][j]);
      }
    }
  }
  for (int j = 0; j < NB; ++j) {
    const int64_t n0 = (nb + j) * kInt4PackedRows;
    const int64_t valid = w.n - n0 < kInt4PackedRows ? w.n - n0 : kInt4PackedRows;
    const __mmask16 mask = static_cast<__mmask16>((1u << valid) - 1u);
    const __m512 b = bias != nullptr ? _mm512_maskz_loadu_ps(mask, bias + n0) : _mm512_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      const __m512 y = _mm512_fmadd_ps(_mm512_set1_ps(x.scales[m0 + r]), facc[r][j], b);
      _mm512_mask_storeu_ps(out + (m0 + r) * w.n + n0, mask, y);
    }
  }
}

// Rows [m0, m0 + MR) against blocks [b0, b1): pairs, then a last single;
// one block at a time for a lone row (decode streams one record after
// another: measured faster cold than two interleaved streams).
template <int MR>
void rows_of_range(const Int8Rows& x, const Int4PackedWeight& w, const float* bias, float* out,
                   int64_t b0, int64_t b1, int64_t m0) {
  constexpr int NB = MR == 1 ? 1 : 2;
  int64_t nb = b0;
  for (; nb + NB <= b1; nb += NB) rows_of_blocks<MR, NB>(x, w, bias, out, nb, m0);
  if (nb < b1) rows_of_blocks<MR, 1>(x, w, bias, out, nb, m0);
}

}  // namespace

void int8_int4_packed_avx512vnni(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                                 float* out, int64_t nb_begin, int64_t nb_end) {
  constexpr int kTile = 4;
  // Prefill: row blocks in chunks whose records stay in L2 (~192 KiB) while
  // every row tile passes over them, so each tile's activations stay in L1
  // and its outputs are written a chunk's width at a time.
  const int64_t block_bytes = w.groups() * w.record_bytes();
  const int64_t l2_blocks = (int64_t{192} << 10) / block_bytes;
  const int64_t chunk = x.m <= kTile ? nb_end - nb_begin : (l2_blocks > 2 ? l2_blocks : 2);
  for (int64_t c0 = nb_begin; c0 < nb_end; c0 += chunk) {
    const int64_t c1 = c0 + chunk < nb_end ? c0 + chunk : nb_end;
    int64_t m0 = 0;
    for (; m0 + kTile <= x.m; m0 += kTile) rows_of_range<kTile>(x, w, bias, out, c0, c1, m0);
    switch (x.m - m0) {
      case 3: rows_of_range<3>(x, w, bias, out, c0, c1, m0); break;
      case 2: rows_of_range<2>(x, w, bias, out, c0, c1, m0); break;
      case 1: rows_of_range<1>(x, w, bias, out, c0, c1, m0); break;
      default: break;
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
