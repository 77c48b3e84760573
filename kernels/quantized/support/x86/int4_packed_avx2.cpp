// AVX2 loops of linear_8da4w_packed (support/int4_packed.h): each record's
// two 32-byte halves (rows 0-7, 8-15) in turn; nibbles split by and /
// shift, vpmaddubsw against the activation quads broadcast (u <= 15, so a
// pair sum is at most 3840 and the eight of a 32-k sub-block sum in int16
// without saturating), one vpmaddwd by ones per sub-block into int32, the
// nibbles' byte sums for Su, and the group's correction and scale on 8-row
// vectors. MR activation rows share each unpacked half record. Compiled
// with -mavx2 -mfma; entered only when quant_isa() allows AVX2.
#include <immintrin.h>

#include <cstring>

#include "kernels/quantized/support/int4_packed.h"

namespace torchedge {
namespace quantized {
namespace {

// How far ahead of its loads the decode loop prefetches the weight stream
// (as the AVX-512 loop: int4_packed_avx512vnni.cpp).
constexpr int64_t kPrefetchBytes = 8192;

inline __m256i broadcast_quad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm256_set1_epi32(v);
}

// Rows [m0, m0 + MR) of x against half `half` (8 rows) of row block nb.
template <int MR>
void rows_of_half(const Int8Rows& x, const Int4PackedWeight& w, const float* bias, float* out,
                  int64_t nb, int half, int64_t m0) {
  const int64_t k = w.k, g = w.group_size, groups = w.groups(), subs = g / kInt4PackedSubBlock;
  const __m256i low4 = _mm256_set1_epi8(0x0F), ones8 = _mm256_set1_epi8(1);
  const __m256i ones16 = _mm256_set1_epi16(1);
  __m256 facc[MR];
  for (int r = 0; r < MR; ++r) facc[r] = _mm256_setzero_ps();
  for (int64_t gi = 0; gi < groups; ++gi) {
    const uint8_t* rec = w.record(nb, gi);
    __m256i acc[MR];
    for (int r = 0; r < MR; ++r) {
      const int64_t m = m0 + r;
      acc[r] = _mm256_set1_epi32(8 * (static_cast<int32_t>(g) * x.zero_points[m] -
                                      x.group_sums[m * groups + gi]));
    }
    __m256i su = _mm256_setzero_si256();
    for (int64_t s = 0; s < subs; ++s) {
      const uint8_t* sb = rec + kInt4PackedHeader + 256 * s + 32 * half;
      const int64_t k0 = gi * g + kInt4PackedSubBlock * s;
      __m256i bytes = _mm256_setzero_si256();
      __m256i pairs[MR];
      for (int r = 0; r < MR; ++r) pairs[r] = _mm256_setzero_si256();
      if (MR == 1 && half == 0) {  // decode: the weights come from DRAM once
        for (int i = 0; i < 4; ++i) {
          _mm_prefetch(reinterpret_cast<const char*>(sb + kPrefetchBytes + 64 * i), _MM_HINT_T0);
        }
      }
      for (int i = 0; i < 4; ++i) {
        const __m256i p = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 64 * i));
        const __m256i lo = _mm256_and_si256(p, low4);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(p, 4), low4);
        bytes = _mm256_add_epi8(bytes, _mm256_add_epi8(lo, hi));
        for (int r = 0; r < MR; ++r) {
          const int8_t* xr = x.q + (m0 + r) * k + k0 + 8 * i;
          const __m256i a = _mm256_maddubs_epi16(lo, broadcast_quad(xr));
          const __m256i b = _mm256_maddubs_epi16(hi, broadcast_quad(xr + 4));
          pairs[r] = _mm256_add_epi16(pairs[r], _mm256_add_epi16(a, b));
        }
      }
      for (int r = 0; r < MR; ++r) acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(pairs[r], ones16));
      su = _mm256_add_epi32(su, _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, ones8), ones16));
    }
    const __m256 scales = _mm256_loadu_ps(reinterpret_cast<const float*>(rec) + 8 * half);
    for (int r = 0; r < MR; ++r) {
      const __m256i xzp = _mm256_set1_epi32(x.zero_points[m0 + r]);
      const __m256i dot = _mm256_sub_epi32(acc[r], _mm256_mullo_epi32(su, xzp));
      facc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), scales, facc[r]);
    }
  }
  const int64_t n0 = nb * kInt4PackedRows + 8 * half;
  const int64_t valid = w.n - n0 < 8 ? w.n - n0 : 8;
  if (valid <= 0) return;
  for (int r = 0; r < MR; ++r) {
    float y[8];
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_set1_ps(x.scales[m0 + r]), facc[r]));
    float* dst = out + (m0 + r) * w.n + n0;
    for (int64_t j = 0; j < valid; ++j) dst[j] = y[j] + (bias != nullptr ? bias[n0 + j] : 0.0f);
  }
}

}  // namespace

void int8_int4_packed_avx2(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                           float* out, int64_t nb_begin, int64_t nb_end) {
  constexpr int kTile = 3;
  for (int64_t nb = nb_begin; nb < nb_end; ++nb) {
    for (int half = 0; half < 2; ++half) {
      int64_t m0 = 0;
      for (; m0 + kTile <= x.m; m0 += kTile) rows_of_half<kTile>(x, w, bias, out, nb, half, m0);
      switch (x.m - m0) {
        case 2: rows_of_half<2>(x, w, bias, out, nb, half, m0); break;
        case 1: rows_of_half<1>(x, w, bias, out, nb, half, m0); break;
        default: break;
      }
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
