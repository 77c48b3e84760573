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

inline __m512i broadcast_quad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

#ifndef TE_CHAINS
#define TE_CHAINS 2
#endif
#ifndef TE_TILE
#define TE_TILE 8
#endif
template <int MR>
void rows_of_block(const Int8Rows& x, const Int4PackedWeight& w, const float* bias, float* out,
                   int64_t nb, int64_t m0) {
  constexpr int kChains = MR < 4 ? 2 : TE_CHAINS;
  const int64_t k = w.k, g = w.group_size, groups = w.groups(), subs = g / kInt4PackedSubBlock;
  const __m512i low4 = _mm512_set1_epi8(0x0F), ones = _mm512_set1_epi8(1);
  __m512 facc[MR];
  for (int r = 0; r < MR; ++r) facc[r] = _mm512_setzero_ps();
  for (int64_t gi = 0; gi < groups; ++gi) {
    const uint8_t* rec = w.record(nb, gi);
    __m512i acc[MR][kChains];
    for (int r = 0; r < MR; ++r) {
      const int64_t m = m0 + r;
      acc[r][0] = _mm512_set1_epi32(8 * (static_cast<int32_t>(g) * x.zero_points[m] -
                                         x.group_sums[m * groups + gi]));
      if (kChains == 2) acc[r][kChains - 1] = _mm512_setzero_si512();
    }
    __m512i su = _mm512_setzero_si512();
    for (int64_t s = 0; s < subs; ++s) {
      const uint8_t* sb = rec + kInt4PackedHeader + 256 * s;
      const int64_t k0 = gi * g + kInt4PackedSubBlock * s;
      __m512i bytes = _mm512_setzero_si512();
      for (int i = 0; i < 4; ++i) {
        const __m512i p = _mm512_loadu_si512(sb + 64 * i);
        const __m512i lo = _mm512_and_si512(p, low4);
        const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(p, 4), low4);
        bytes = _mm512_add_epi8(bytes, _mm512_add_epi8(lo, hi));
        for (int r = 0; r < MR; ++r) {
          const int8_t* xr = x.q + (m0 + r) * k + k0 + 8 * i;
          acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], lo, broadcast_quad(xr));
          acc[r][kChains - 1] = _mm512_dpbusd_epi32(acc[r][kChains - 1], hi, broadcast_quad(xr + 4));
        }
      }
      su = _mm512_dpbusd_epi32(su, bytes, ones);  // bytes <= 8 * 15: no carry between lanes
    }
    const __m512 scales = _mm512_loadu_ps(reinterpret_cast<const float*>(rec));
    for (int r = 0; r < MR; ++r) {
      __m512i dot = kChains == 2 ? _mm512_add_epi32(acc[r][0], acc[r][kChains - 1]) : acc[r][0];
      dot = _mm512_sub_epi32(dot, _mm512_mullo_epi32(su, _mm512_set1_epi32(x.zero_points[m0 + r])));
      facc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), scales, facc[r]);
    }
  }
  const int64_t n0 = nb * kInt4PackedRows;
  const int64_t valid = w.n - n0 < kInt4PackedRows ? w.n - n0 : kInt4PackedRows;
  const __mmask16 mask = static_cast<__mmask16>((1u << valid) - 1u);
  const __m512 b = bias != nullptr ? _mm512_maskz_loadu_ps(mask, bias + n0) : _mm512_setzero_ps();
  for (int r = 0; r < MR; ++r) {
    const __m512 y = _mm512_fmadd_ps(_mm512_set1_ps(x.scales[m0 + r]), facc[r], b);
    _mm512_mask_storeu_ps(out + (m0 + r) * w.n + n0, mask, y);
  }
}

}  // namespace

void int8_int4_packed_avx512vnni(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                                 float* out, int64_t nb_begin, int64_t nb_end) {
  constexpr int kTile = 6;
  // Prefill: row blocks in chunks whose records stay in L2 (~192 KiB) while
  // every row tile passes over them, so each tile's activations stay in L1
  // and its outputs are written a chunk's width at a time.
  const int64_t block_bytes = w.groups() * w.record_bytes();
  const int64_t chunk = x.m <= kTile ? nb_end - nb_begin
                                     : ((int64_t{192} << 10) / block_bytes > 1 ? (int64_t{192} << 10) / block_bytes : 1);
  for (int64_t c0 = nb_begin; c0 < nb_end; c0 += chunk) {
    const int64_t c1 = c0 + chunk < nb_end ? c0 + chunk : nb_end;
    int64_t m0 = 0;
    for (; m0 + kTile <= x.m; m0 += kTile) {
      for (int64_t nb = c0; nb < c1; ++nb) rows_of_block<kTile>(x, w, bias, out, nb, m0);
    }
    for (int64_t nb = c0; nb < c1; ++nb) {
      switch (x.m - m0) {
        case 5: rows_of_block<5>(x, w, bias, out, nb, m0); break;
        case 4: rows_of_block<4>(x, w, bias, out, nb, m0); break;
        case 3: rows_of_block<3>(x, w, bias, out, nb, m0); break;
        case 2: rows_of_block<2>(x, w, bias, out, nb, m0); break;
        case 1: rows_of_block<1>(x, w, bias, out, nb, m0); break;
        default: break;
      }
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
