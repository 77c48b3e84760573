// AVX2 GEMV loops of linear_q4a / linear_q8c (support/group_linear.h) for
// M <= group_gemv_rows(): the AVX-512 loops' scheme (group_gemv_avx512vnni.cpp)
// on 32-byte vectors, with vpmaddubsw + vpmaddwd for the int8 dot products:
//   q4a:  u8 codes [0, 15] x s8 activations; the pair sums of both nibbles
//         add in int16 (|sum| <= 4 * 15 * 127 = 7620: exact);
//   q8c:  |q| x (xq with q's sign) (vpsignb), so no pair sum exceeds
//         2 * 128 * 127 = 32512 (vpmaddubsw saturates only past 32767).
// Each output row's instructions do not depend on which rows share its
// block. Compiled with -mavx2 -mfma -mf16c.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/simd_sums_x86.h"

// Eight float16 values from p (count < 8: the rest 0) as floats. The
// stream [p, end) is in DRAM: a whole load with the tail masked in
// registers unless it would run past the end (then through a copy).
inline __m256 halves8(const uint16_t* p, int64_t count, const uint16_t* end) {
  if (p + 8 <= end) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (count < 8) {
      const __m128i lane = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
      v = _mm_and_si128(v, _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<int16_t>(count)), lane));
    }
    return _mm256_cvtph_ps(v);
  }
  alignas(16) uint16_t tmp[8] = {};
  for (int64_t i = 0; i < count && i < 8; ++i) tmp[i] = p[i];
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(tmp)));
}

inline __m256 floats8(const float* p, int64_t count) {
  if (count >= 8) return _mm256_loadu_ps(p);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_maskload_ps(p,
                            _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane));
}

// sum_j v[j] * t[j] over the row's G float16 values v, added into acc.
inline __m256 half_dot(const uint16_t* v, const float* t, int64_t groups, const uint16_t* end,
                       __m256 acc) {
  for (int64_t j = 0; j < groups; j += 8) {
    acc = _mm256_fmadd_ps(halves8(v + j, groups - j, end), floats8(t + j, groups - j), acc);
  }
  return acc;
}

// How far ahead of its loads a row block prefetches the weight stream.
constexpr int64_t kPrefetchBytes = 8192;

// Float16 values p[0, kCount) (kCount <= 2) in the low lanes of a vector,
// exactly kCount read.
template <int kCount>
inline __m128 halves_at(const uint16_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, kCount * sizeof(uint16_t));
  return _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(v)));
}

template <int MR, int NB>
struct Q4aAccumulators {
  __m256 acc[MR][NB];
};

// One 32-byte vector v of NB rows (codes q[b], scales s4[b] in the low
// lanes) into the accumulators of MR activation rows.
template <int MR, int NB>
inline void q4a_step(const GroupActs& a, int64_t v, const __m256i q[NB], const __m128 s4[NB],
                     __m256i expand, Q4aAccumulators<MR, NB>& t) {
  const int64_t stride = a.gemv_bytes;
  const __m256i low4 = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi16(1);
  __m256i lo[NB], hi[NB];
  __m256 scale[NB];
  for (int b = 0; b < NB; ++b) {
    lo[b] = _mm256_and_si256(q[b], low4);
    hi[b] = _mm256_and_si256(_mm256_srli_epi16(q[b], 4), low4);
    scale[b] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(s4[b]), expand);
  }
  for (int r = 0; r < MR; ++r) {
    const __m256i xl =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(a.q_lo + r * stride + 32 * v));
    const __m256i xh =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(a.q_hi + r * stride + 32 * v));
    const __m256 s = _mm256_load_ps(a.lane_s + r * stride / 4 + 8 * v);
    for (int b = 0; b < NB; ++b) {
      const __m256i pairs =
          _mm256_add_epi16(_mm256_maddubs_epi16(lo[b], xl), _mm256_maddubs_epi16(hi[b], xh));
      const __m256i d = _mm256_madd_epi16(pairs, ones);
      t.acc[r][b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d), _mm256_mul_ps(scale[b], s), t.acc[r][b]);
    }
  }
}

template <int MR, int NB, int64_t G>
void q4a_int8(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
              int64_t n0) {
  const int64_t bytes = w.k / 2, groups = w.groups();
  // Lane l of vector v holds k = 64 v + 8 l ..: G = 32 puts two groups in a
  // vector (lanes 0-3, 4-7), larger G one.
  const __m256i expand =
      G == 32 ? _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1) : _mm256_setzero_si256();
  Q4aAccumulators<MR, NB> t;
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) t.acc[r][b] = _mm256_setzero_ps();
  }
  const uint8_t* block = w.codes + n0 * bytes;
  const uint16_t* scales = w.scales16 + n0 * groups;
  const int64_t full = bytes / 32;
  for (int64_t v = 0; v < full; ++v) {
    __m256i q[NB];
    __m128 s4[NB];
    for (int b = 0; b < NB; ++b) {
      const uint8_t* p = block + b * bytes + 32 * v;
      if (v % 2 == 0) _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchBytes), _MM_HINT_T0);
      q[b] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      s4[b] = halves_at<G == 32 ? 2 : 1>(scales + b * groups + 64 * v / G);
    }
    q4a_step<MR, NB>(a, v, q, s4, expand, t);
  }
  if (full * 32 < bytes) {  // the rows' last 16 bytes: 32 k, one group
    __m256i q[NB];
    __m128 s4[NB];
    for (int b = 0; b < NB; ++b) {
      q[b] = _mm256_zextsi128_si256(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + b * bytes + 32 * full)));
      s4[b] = halves_at<1>(scales + b * groups + 64 * full / G);
    }
    q4a_step<MR, NB>(a, full, q, s4, expand, t);
  }
  // The scales' and mins' streams: the lines this block takes, as far
  // ahead as the codes.
  const char* scales_ahead = reinterpret_cast<const char*>(scales) + kPrefetchBytes * 4 / G;
  const char* mins_ahead =
      reinterpret_cast<const char*>(w.mins16 + n0 * groups) + kPrefetchBytes * 4 / G;
  for (int64_t off = 0; off < NB * groups * 2; off += 64) {
    _mm_prefetch(scales_ahead + off, _MM_HINT_T0);
    _mm_prefetch(mins_ahead + off, _MM_HINT_T0);
  }
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) {
      const int64_t n = n0 + b;
      const __m256 total = half_dot(w.mins16 + n * groups, a.s_sums + r * groups, groups,
                                    w.mins16 + w.n * groups, t.acc[r][b]);
      out[r * w.n + n] = hsum_ps(total) + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

template <int MR, int NB>
void q8c_int8(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
              int64_t n0) {
  const int64_t k = w.k, stride = a.gemv_bytes;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_setzero_ps();
  }
  for (int64_t v = 0; 32 * v < k; ++v) {  // K % 32 == 0
    __m256i q[NB], mag[NB];
    for (int b = 0; b < NB; ++b) {
      q[b] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.codes + (n0 + b) * k + 32 * v));
      mag[b] = _mm256_sign_epi8(q[b], q[b]);
    }
    for (int r = 0; r < MR; ++r) {
      const __m256i x =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(a.q_lo + r * stride + 32 * v));
      const __m256 s = _mm256_load_ps(a.lane_s + r * stride / 4 + 8 * v);
      for (int b = 0; b < NB; ++b) {
        const __m256i pairs = _mm256_maddubs_epi16(mag[b], _mm256_sign_epi8(x, q[b]));
        const __m256i d = _mm256_madd_epi16(pairs, ones);
        acc[r][b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d), s, acc[r][b]);
      }
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) {
      const int64_t n = n0 + b;
      out[r * w.n + n] = w.row_scales[n] * hsum_ps(acc[r][b]) + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

template <int MR, int NB>
void q4a_float(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
               int64_t n0) {
  const int64_t bytes = w.k / 2, groups = w.groups(), g = w.group_size, stride = a.gemv_bytes;
  const __m256i low4 = _mm256_set1_epi32(0x0F);
  __m256 acc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_setzero_ps();
  }
  alignas(32) float scales[NB][8];
  for (int64_t j0 = 0; j0 < groups; j0 += 8) {
    for (int b = 0; b < NB; ++b) {
      _mm256_store_ps(scales[b], halves8(w.scales16 + (n0 + b) * groups + j0, groups - j0,
                                         w.scales16 + w.n * groups));
    }
    const int64_t j1 = groups - j0 < 8 ? groups : j0 + 8;
    for (int64_t j = j0; j < j1; ++j) {
      __m256 d[MR][NB];
      for (int r = 0; r < MR; ++r) {
        for (int b = 0; b < NB; ++b) d[r][b] = _mm256_setzero_ps();
      }
      for (int64_t i = j * g / 2; i < (j + 1) * g / 2; i += 8) {  // 8 bytes = 16 k
        __m256 lo[NB], hi[NB];
        for (int b = 0; b < NB; ++b) {
          const __m256i c = _mm256_cvtepu8_epi32(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.codes + (n0 + b) * bytes + i)));
          lo[b] = _mm256_cvtepi32_ps(_mm256_and_si256(c, low4));
          hi[b] = _mm256_cvtepi32_ps(_mm256_srli_epi32(c, 4));
        }
        for (int r = 0; r < MR; ++r) {
          const __m256 xl = _mm256_load_ps(a.x_lo + r * stride + i);
          const __m256 xh = _mm256_load_ps(a.x_hi + r * stride + i);
          for (int b = 0; b < NB; ++b) {
            d[r][b] = _mm256_fmadd_ps(hi[b], xh, _mm256_fmadd_ps(lo[b], xl, d[r][b]));
          }
        }
      }
      for (int b = 0; b < NB; ++b) {
        const __m256 scale = _mm256_set1_ps(scales[b][j - j0]);
        for (int r = 0; r < MR; ++r) acc[r][b] = _mm256_fmadd_ps(d[r][b], scale, acc[r][b]);
      }
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) {
      const int64_t n = n0 + b;
      const __m256 total = half_dot(w.mins16 + n * groups, a.x_sums + r * groups, groups,
                                    w.mins16 + w.n * groups, acc[r][b]);
      out[r * w.n + n] = hsum_ps(total) + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

template <int MR, int NB>
void q8c_float(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
               int64_t n0) {
  const int64_t k = w.k, stride = a.gemv_bytes;
  __m256 acc[MR][NB];
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_setzero_ps();
  }
  for (int64_t i = 0; i < k; i += 8) {
    __m256 q[NB];
    for (int b = 0; b < NB; ++b) {
      q[b] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.codes + (n0 + b) * k + i))));
    }
    for (int r = 0; r < MR; ++r) {
      const __m256 x = _mm256_load_ps(a.x_lo + r * stride + i);
      for (int b = 0; b < NB; ++b) acc[r][b] = _mm256_fmadd_ps(q[b], x, acc[r][b]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int b = 0; b < NB; ++b) {
      const int64_t n = n0 + b;
      out[r * w.n + n] = w.row_scales[n] * hsum_ps(acc[r][b]) + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
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

void group_gemv_avx2(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
                     int64_t n_begin, int64_t n_end) {
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
