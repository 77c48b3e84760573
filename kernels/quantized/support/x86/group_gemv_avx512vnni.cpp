// AVX-512 GEMV loops of linear_q4a / linear_q8c (support/group_linear.h)
// for M <= group_gemv_rows() (decode): the weights are read once, in their
// plain layout, 64 bytes a load (a row's last partial vector through
// group_loads_avx512.h), 4 rows at a time, prefetched 8 KiB ahead, with
// lanes along K; every activation operand comes from the per-call tables of
// support/group_linear_loops.h (indexed by weight byte, zero-padded). Per
// 32-bit lane (4 weight bytes) an exact int32 dot product, then lane-wise
// float scaling and one horizontal sum per output (4 rows per reduction):
//   q4a, 8-bit:  nibbles split by and / shift, two vpdpbusd (u8 codes x s8
//                activations at the low / high nibble's k), each lane scaled
//                by its group's scale (float16, expanded to the lanes by
//                vpermps) times s; the min term sum_j min_j s_j Sx_j as a
//                dot product of the row's mins with the s * Sx table.
//   q8c, 8-bit:  codes + 128 (xor 0x80) as u8 x s8 activations, each lane's
//                int32 starting at -128 * its activations' sum, so it ends
//                at the exact sum of xq * q; scaled by s, then by scale[n].
//   32-bit:      16 codes widened to float per step and FMA'd against the
//                activations at their k; q4a per group: scale * sum(x q) +
//                min * sum(x).
// Each output row's instructions do not depend on which rows share its
// block, so any split of N gives the same bits. Compiled with
// -mavx512f/bw/vl/vnni; entered only when quant_isa() is kAvx512Vnni.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/quantized/support/group_linear_loops.h"

// GCC 12's AVX-512 headers build masked intrinsics on undefined vectors,
// which -W(maybe-)uninitialized reports (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/group_loads_avx512.h"

// How far ahead of its loads a row block prefetches the weight stream
// (the hardware prefetcher alone leaves a single core latency-bound).
constexpr int64_t kPrefetchBytes = 8192;

// sum_j v[j] * t[j] over the row's G float16 values v (min terms), added
// into acc lane-wise; t (in scratch) may be read 16 values past its end.
inline __m512 half_dot(const uint16_t* v, const float* t, int64_t groups, const uint16_t* end,
                       __m512 acc) {
  for (int64_t j = 0; j < groups; j += 16) {
    const int64_t n = groups - j;
    const __m512 h = _mm512_cvtph_ps(load_words16(v + j, n, end));
    const __m512 tj = n >= 16 ? _mm512_loadu_ps(t + j)
                              : _mm512_maskz_mov_ps(static_cast<__mmask16>((1u << n) - 1),
                                                    _mm512_castsi512_ps(opaque_load512(t + j)));
    acc = _mm512_fmadd_ps(h, tj, acc);
  }
  return acc;
}

// The horizontal sums of up to 4 rows' accumulators, lane i = row i's
// total. Each lane's sum takes the same steps whatever the other lanes
// hold, so a row's bits do not depend on the rows it is reduced with.
inline __m128 reduce4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
  const __m512 s01 =
      _mm512_add_ps(_mm512_shuffle_f32x4(a0, a1, 0x44), _mm512_shuffle_f32x4(a0, a1, 0xEE));
  const __m512 s23 =
      _mm512_add_ps(_mm512_shuffle_f32x4(a2, a3, 0x44), _mm512_shuffle_f32x4(a2, a3, 0xEE));
  __m512 t =
      _mm512_add_ps(_mm512_shuffle_f32x4(s01, s23, 0x88), _mm512_shuffle_f32x4(s01, s23, 0xDD));
  t = _mm512_add_ps(t, _mm512_permute_ps(t, 0x4E));
  t = _mm512_add_ps(t, _mm512_permute_ps(t, 0xB1));
  const __m512i first = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  return _mm512_castps512_ps128(_mm512_permutexvar_ps(first, t));
}

// out[n0 .. n0 + NB) of one activation row: (scale[n] *) sum + bias[n].
template <int NB>
inline void store_rows(const __m512 (&acc)[NB], const float* row_scales, const float* bias,
                       int64_t n0, float* out) {
  const __m128 sums =
      reduce4(acc[0], acc[NB > 1 ? 1 : 0], acc[NB > 2 ? 2 : 0], acc[NB > 3 ? 3 : 0]);
  alignas(16) float y[4];
  _mm_store_ps(y, sums);
  for (int b = 0; b < NB; ++b) {
    const float v = row_scales != nullptr ? row_scales[n0 + b] * y[b] : y[b];
    out[n0 + b] = v + (bias != nullptr ? bias[n0 + b] : 0.0f);
  }
}

// The float16 scales of the kPer groups of a whole vector, exactly kPer
// values read (so the last row never reads past the tensor).
template <int64_t kPer>
inline __m128i vector_halves(const uint16_t* p) {
  if (kPer == 4) return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  uint32_t v = 0;
  std::memcpy(&v, p, kPer * sizeof(uint16_t));
  return _mm_cvtsi32_si128(static_cast<int>(v));
}

template <int MR, int NB>
struct Q4aAccumulators {
  __m512 acc[MR][NB];
};

// One 64-byte vector v of NB rows (codes q[b], float16 scales h[b]) into
// the accumulators of MR activation rows.
template <int MR, int NB>
inline void q4a_step(const GroupActs& a, int64_t v, const __m512i q[NB], const __m128i h[NB],
                     __m512i expand, Q4aAccumulators<MR, NB>& t) {
  const int64_t stride = a.gemv_bytes;
  const __m512i low4 = _mm512_set1_epi8(0x0F);
  __m512i lo[NB], hi[NB];
  __m512 scale[NB];
  for (int b = 0; b < NB; ++b) {
    lo[b] = _mm512_and_si512(q[b], low4);
    hi[b] = _mm512_and_si512(_mm512_srli_epi16(q[b], 4), low4);
    scale[b] = _mm512_permutexvar_ps(expand, _mm512_castps128_ps512(_mm_cvtph_ps(h[b])));
  }
  for (int r = 0; r < MR; ++r) {
    const __m512i xl = _mm512_load_si512(a.q_lo + r * stride + 64 * v);
    const __m512i xh = _mm512_load_si512(a.q_hi + r * stride + 64 * v);
    const __m512 s = _mm512_load_ps(a.lane_s + r * stride / 4 + 16 * v);
    for (int b = 0; b < NB; ++b) {
      __m512i d = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo[b], xl);
      d = _mm512_dpbusd_epi32(d, hi[b], xh);
      t.acc[r][b] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(scale[b], s), t.acc[r][b]);
    }
  }
}

template <int MR, int NB, int64_t G>
void q4a_int8(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
              int64_t n0) {
  const int64_t bytes = w.k / 2, groups = w.groups();
  // Lane l of vector v holds k = 128 v + 8 l ..: group 128 v / G + 8 l / G
  // (G = 256: one group per vector).
  constexpr int64_t kPer = G <= 128 ? 128 / G : 1;
  const __m512i expand = G >= 128 ? _mm512_setzero_si512()
                                  : _mm512_srli_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8,
                                                                        9, 10, 11, 12, 13, 14, 15),
                                                      G == 32 ? 2 : 3);
  Q4aAccumulators<MR, NB> t;
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) t.acc[r][b] = _mm512_setzero_ps();
  }
  const uint8_t* block = w.codes + n0 * bytes;
  const uint16_t* scales = w.scales16 + n0 * groups;
  const int64_t full = bytes / 64;
  for (int64_t v = 0; v < full; ++v) {
    __m512i q[NB];
    __m128i h[NB];
    for (int b = 0; b < NB; ++b) {
      const uint8_t* p = block + b * bytes + 64 * v;
      _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes), _MM_HINT_T0);
      q[b] = _mm512_loadu_si512(p);
      h[b] = vector_halves<kPer>(scales + b * groups + 128 * v / G);
    }
    q4a_step<MR, NB>(a, v, q, h, expand, t);
  }
  if (full * 64 < bytes) {  // the rows' last 16-48 bytes (fewer groups than kPer)
    const int64_t first = 128 * full / G;
    __m512i q[NB];
    __m128i h[NB];
    for (int b = 0; b < NB; ++b) {
      q[b] = load_bytes64(block + b * bytes + 64 * full, bytes - 64 * full, w.codes + w.n * bytes);
      h[b] = load_words8(scales + b * groups + first, groups - first, w.scales16 + w.n * groups);
    }
    q4a_step<MR, NB>(a, full, q, h, expand, t);
  }
  // The scales' and mins' streams (1/8 of the codes' bytes at g = 32): the
  // lines this block takes, as far ahead as the codes.
  const char* scales_ahead = reinterpret_cast<const char*>(scales) + kPrefetchBytes * 4 / G;
  const char* mins_ahead =
      reinterpret_cast<const char*>(w.mins16 + n0 * groups) + kPrefetchBytes * 4 / G;
  for (int64_t off = 0; off < NB * groups * 2; off += 64) {
    _mm_prefetch(scales_ahead + off, _MM_HINT_T0);
    _mm_prefetch(mins_ahead + off, _MM_HINT_T0);
  }
  for (int r = 0; r < MR; ++r) {
    __m512 total[NB];
    for (int b = 0; b < NB; ++b) {
      total[b] = half_dot(w.mins16 + (n0 + b) * groups, a.s_sums + r * groups, groups,
                          w.mins16 + w.n * groups, t.acc[r][b]);
    }
    store_rows<NB>(total, nullptr, bias, n0, out + r * w.n);
  }
}

template <int MR, int NB>
void q8c_int8(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
              int64_t n0) {
  const int64_t bytes = w.k, stride = a.gemv_bytes;
  const __m512i offset = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512 acc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm512_setzero_ps();
  }
  const uint8_t* codes_end = w.codes + w.n * bytes;
  const uint8_t* block = w.codes + n0 * bytes;
  for (int64_t v = 0; 64 * v < bytes; ++v) {
    __m512i u[NB];
    for (int b = 0; b < NB; ++b) {
      const uint8_t* p = block + b * bytes + 64 * v;
      _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes), _MM_HINT_T0);
      // q + 128 as u8; bytes past the row become 128, against zero activations.
      u[b] = _mm512_xor_si512(load_bytes64(p, bytes - 64 * v, codes_end), offset);
    }
    for (int r = 0; r < MR; ++r) {
      const __m512i x = _mm512_load_si512(a.q_lo + r * stride + 64 * v);
      const __m512i c = _mm512_load_si512(a.lane_c + r * stride / 4 + 16 * v);
      const __m512 s = _mm512_load_ps(a.lane_s + r * stride / 4 + 16 * v);
      for (int b = 0; b < NB; ++b) {
        const __m512i d = _mm512_dpbusd_epi32(c, u[b], x);
        acc[r][b] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), s, acc[r][b]);
      }
    }
  }
  for (int r = 0; r < MR; ++r) store_rows<NB>(acc[r], w.row_scales, bias, n0, out + r * w.n);
}

template <int MR, int NB>
void q4a_float(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
               int64_t n0) {
  const int64_t bytes = w.k / 2, groups = w.groups(), g = w.group_size, stride = a.gemv_bytes;
  const __m512i low4 = _mm512_set1_epi32(0x0F);
  __m512 acc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm512_setzero_ps();
  }
  alignas(64) float scales[NB][16];
  for (int64_t j0 = 0; j0 < groups; j0 += 16) {
    for (int b = 0; b < NB; ++b) {
      _mm512_store_ps(scales[b],
                      _mm512_cvtph_ps(load_words16(w.scales16 + (n0 + b) * groups + j0, groups - j0,
                                                   w.scales16 + w.n * groups)));
    }
    const int64_t j1 = groups - j0 < 16 ? groups : j0 + 16;
    for (int64_t j = j0; j < j1; ++j) {
      __m512 d[MR][NB];
      for (int r = 0; r < MR; ++r) {
        for (int b = 0; b < NB; ++b) d[r][b] = _mm512_setzero_ps();
      }
      for (int64_t i = j * g / 2; i < (j + 1) * g / 2; i += 16) {  // 16 bytes = 32 k
        __m512 lo[NB], hi[NB];
        for (int b = 0; b < NB; ++b) {
          const uint8_t* p = w.codes + (n0 + b) * bytes + i;
          if (i % 64 == 0) {
            _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes), _MM_HINT_T0);
          }
          const __m512i c =
              _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
          lo[b] = _mm512_cvtepi32_ps(_mm512_and_si512(c, low4));
          hi[b] = _mm512_cvtepi32_ps(_mm512_srli_epi32(c, 4));
        }
        for (int r = 0; r < MR; ++r) {
          const __m512 xl = _mm512_load_ps(a.x_lo + r * stride + i);
          const __m512 xh = _mm512_load_ps(a.x_hi + r * stride + i);
          for (int b = 0; b < NB; ++b) {
            d[r][b] = _mm512_fmadd_ps(hi[b], xh, _mm512_fmadd_ps(lo[b], xl, d[r][b]));
          }
        }
      }
      for (int b = 0; b < NB; ++b) {
        const __m512 scale = _mm512_set1_ps(scales[b][j - j0]);
        for (int r = 0; r < MR; ++r) acc[r][b] = _mm512_fmadd_ps(d[r][b], scale, acc[r][b]);
      }
    }
  }
  for (int r = 0; r < MR; ++r) {
    __m512 total[NB];
    for (int b = 0; b < NB; ++b) {
      total[b] = half_dot(w.mins16 + (n0 + b) * groups, a.x_sums + r * groups, groups,
                          w.mins16 + w.n * groups, acc[r][b]);
    }
    store_rows<NB>(total, nullptr, bias, n0, out + r * w.n);
  }
}

template <int MR, int NB>
void q8c_float(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
               int64_t n0) {
  const int64_t k = w.k, stride = a.gemv_bytes;
  __m512 acc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < k; i += 16) {
    __m512 q[NB];
    for (int b = 0; b < NB; ++b) {
      const uint8_t* p = w.codes + (n0 + b) * k + i;
      if (i % 64 == 0) _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes), _MM_HINT_T0);
      q[b] = _mm512_cvtepi32_ps(
          _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    for (int r = 0; r < MR; ++r) {
      const __m512 x = _mm512_load_ps(a.x_lo + r * stride + i);
      for (int b = 0; b < NB; ++b) acc[r][b] = _mm512_fmadd_ps(q[b], x, acc[r][b]);
    }
  }
  for (int r = 0; r < MR; ++r) store_rows<NB>(acc[r], w.row_scales, bias, n0, out + r * w.n);
}

template <int MR>
void rows(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
          int64_t n_begin, int64_t n_end) {
  constexpr int kBlock = MR <= 2 ? 4 : 2;
  const bool affine = w.format == GroupWeightFormat::kAffine4;
  using Loop = void (*)(const GroupActs&, const GroupLinearWeight&, const float*, float*, int64_t);
  Loop block =
      affine ? q4a_float<MR, kBlock> : (a.bits == 8 ? q8c_int8<MR, kBlock> : q8c_float<MR, kBlock>);
  Loop one = affine ? q4a_float<MR, 1> : (a.bits == 8 ? q8c_int8<MR, 1> : q8c_float<MR, 1>);
  if (affine && a.bits == 8) {
    switch (w.group_size) {
      case 32:
        block = q4a_int8<MR, kBlock, 32>, one = q4a_int8<MR, 1, 32>;
        break;
      case 64:
        block = q4a_int8<MR, kBlock, 64>, one = q4a_int8<MR, 1, 64>;
        break;
      case 128:
        block = q4a_int8<MR, kBlock, 128>, one = q4a_int8<MR, 1, 128>;
        break;
      default:
        block = q4a_int8<MR, kBlock, 256>, one = q4a_int8<MR, 1, 256>;
        break;
    }
  }
  int64_t n = n_begin;
  for (; n + kBlock <= n_end; n += kBlock) block(a, w, bias, out, n);
  for (; n < n_end; ++n) one(a, w, bias, out, n);
}

}  // namespace

void group_gemv_avx512vnni(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                           float* out, int64_t n_begin, int64_t n_end) {
  switch (a.m) {
    case 1:
      rows<1>(a, w, bias, out, n_begin, n_end);
      break;
    case 2:
      rows<2>(a, w, bias, out, n_begin, n_end);
      break;
    case 3:
      rows<3>(a, w, bias, out, n_begin, n_end);
      break;
    case 4:
      rows<4>(a, w, bias, out, n_begin, n_end);
      break;
    default:
      break;
  }
}

}  // namespace quantized
}  // namespace torchedge
