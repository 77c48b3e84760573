// AVX2 GEMM loops of linear_q4a / linear_q8c with int8 activations
// (support/group_linear.h), more than group_gemv_rows() rows. Per strip of 8 output columns,
// once per call, the worker unpacks the weights into its panel:
//
//   codes   [K/4 quads][8 columns][4 k]  (q4a: u8 q; q8c: int8 q)
//   params  q4a: scale, min [G][8] float32; q8c: scale [8]
//
// (8 x 8 transposes), so one 32-byte load holds 8 columns x 4 k against 4
// activation bytes broadcast from row m. Tiles of 4 rows x 8 columns:
//   q4a: vpmaddubsw (u8 codes x s8 activations, pair sums <= 2 * 15 * 127)
//        summed in int16 over 8 quads (<= 30480), widened by vpmaddwd;
//        sum += s_j * (D * scale) + min * (s_j Sx_j)
//   q8c: vpmaddubsw(|q|, xq with q's sign) (pair sums <= 32512), vpmaddwd;
//        sum += s_j * D; out = sum * scale[n].
// Exact int32 D per group. Compiled with -mavx2 -mfma -mf16c.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/group_panel_avx2.h"

constexpr int64_t kColumns = 8;
constexpr int kTileRows = 4;

struct Panel {
  uint8_t* codes;  // [quads padded to 8][8][4]
  float* scales;   // q4a [G][8]; q8c [8]
  float* mins;     // q4a [G][8]
};

int64_t padded_k(const GroupLinearWeight& w) { return (w.k + 31) / 32 * 32; }

size_t panel_bytes(const GroupLinearWeight& w, int /*bits*/) {
  const size_t kp = static_cast<size_t>(padded_k(w)), groups = static_cast<size_t>(w.groups());
  return kp * kColumns + 2 * groups * kColumns * 4 + 2 * 64;
}

Panel carve(const GroupLinearWeight& w, void* scratch) {
  Panel p;
  const size_t kp = static_cast<size_t>(padded_k(w)), groups = static_cast<size_t>(w.groups());
  uintptr_t at = (reinterpret_cast<uintptr_t>(scratch) + 63) & ~uintptr_t{63};
  p.codes = reinterpret_cast<uint8_t*>(at);
  at += kp * kColumns;
  p.scales = reinterpret_cast<float*>(at);
  p.mins = reinterpret_cast<float*>(at + ((groups * kColumns * 4 + 63) & ~size_t{63}));
  return p;
}

// table [n, 0, G) float16 of rows c0 .. c0 + 7 (0 past N) into dst [G][8]
// float32, 8 x 8 blocks at a time through the transpose.
void pack_params(const uint16_t* table, const GroupLinearWeight& w, int64_t c0, float* dst) {
  const int64_t groups = w.groups();
  const uint16_t* end = table + w.n * groups;
  for (int64_t j0 = 0; j0 < groups; j0 += 8) {
    const int64_t count = groups - j0 < 8 ? groups - j0 : 8;
    __m256i r[8];
    for (int i = 0; i < 8; ++i) {
      const int64_t n = c0 + i;
      r[i] = n < w.n ? _mm256_castps_si256(halves8(table + n * groups + j0, count, end))
                     : _mm256_setzero_si256();
    }
    transpose8x8_epi32(r);
    for (int64_t t = 0; t < count; ++t) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(dst + (j0 + t) * kColumns), r[t]);
    }
  }
}

// The panel of columns [c0, c0 + 8): per 8 quads, 8 rows' codes in
// registers, transposed to 8 quads x 8 columns.
void pack(const GroupLinearWeight& w, int64_t c0, const Panel& p) {
  for (int64_t q0 = 0; 4 * q0 < w.k; q0 += 8) {
    __m256i r[8];
    for (int i = 0; i < 8; ++i) r[i] = row_codes32(w, c0 + i, 4 * q0);
    transpose8x8_epi32(r);
    for (int t = 0; t < 8; ++t) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(p.codes + (q0 + t) * 32), r[t]);
    }
  }
  if (w.format == GroupWeightFormat::kAffine4) {
    pack_params(w.scales16, w, c0, p.scales);
    pack_params(w.mins16, w, c0, p.mins);
  } else {
    for (int c = 0; c < kColumns; ++c) p.scales[c] = c0 + c < w.n ? w.row_scales[c0 + c] : 0.0f;
  }
}

inline __m256i broadcast_quad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm256_set1_epi32(v);
}

// The exact int32 sums of group j for rows [m0, m0 + MR).
template <int MR, bool kAffine>
__attribute__((always_inline)) inline void group_dots(const GroupActs& a, const Panel& p, int64_t j,
                                                      int64_t m0, __m256i (&acc)[MR]) {
  const int64_t k = a.k, g = a.group_size;
  const __m256i ones = _mm256_set1_epi16(1);
  for (int r = 0; r < MR; ++r) acc[r] = _mm256_setzero_si256();
  for (int64_t q0 = j * g / 4; q0 < (j + 1) * g / 4; q0 += 8) {
    if (kAffine) {
      __m256i pairs[MR];
      for (int r = 0; r < MR; ++r) pairs[r] = _mm256_setzero_si256();
      // Unrolled fully, GCC 12 schedules all 32 broadcasts first and spills.
#pragma GCC unroll 2
      for (int64_t qd = q0; qd < q0 + 8; ++qd) {
        const __m256i wv = _mm256_load_si256(reinterpret_cast<const __m256i*>(p.codes + qd * 32));
        for (int r = 0; r < MR; ++r) {
          const __m256i x = broadcast_quad(a.q + (m0 + r) * k + 4 * qd);
          pairs[r] = _mm256_add_epi16(pairs[r], _mm256_maddubs_epi16(wv, x));
        }
      }
      for (int r = 0; r < MR; ++r) {
        acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(pairs[r], ones));
      }
    } else {
#pragma GCC unroll 2
      for (int64_t qd = q0; qd < q0 + 8; ++qd) {
        const __m256i wv = _mm256_load_si256(reinterpret_cast<const __m256i*>(p.codes + qd * 32));
        const __m256i mag = _mm256_sign_epi8(wv, wv);
        for (int r = 0; r < MR; ++r) {
          const __m256i x = _mm256_sign_epi8(broadcast_quad(a.q + (m0 + r) * k + 4 * qd), wv);
          acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(_mm256_maddubs_epi16(mag, x), ones));
        }
      }
    }
  }
}

template <int MR, bool kAffine>
void tile(const GroupActs& a, const GroupLinearWeight& w, const Panel& p, const float* bias,
          float* out, int64_t c0, int64_t m0) {
  const int64_t groups = w.groups();
  __m256 sum[MR];
  for (int r = 0; r < MR; ++r) sum[r] = _mm256_setzero_ps();
  for (int64_t j = 0; j < groups; ++j) {
    __m256i acc[MR];
    group_dots<MR, kAffine>(a, p, j, m0, acc);
    if (kAffine) {
      const __m256 sc = _mm256_load_ps(p.scales + j * kColumns),
                   mn = _mm256_load_ps(p.mins + j * kColumns);
      for (int r = 0; r < MR; ++r) {
        const __m256 s = _mm256_set1_ps(a.s[(m0 + r) * groups + j]);
        sum[r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[r]), sc), s, sum[r]);
        sum[r] = _mm256_fmadd_ps(mn, _mm256_set1_ps(a.s_sums[(m0 + r) * groups + j]), sum[r]);
      }
    } else {
      for (int r = 0; r < MR; ++r) {
        sum[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r]),
                                 _mm256_set1_ps(a.s[(m0 + r) * groups + j]), sum[r]);
      }
    }
  }
  const int64_t valid = w.n - c0 < kColumns ? w.n - c0 : kColumns;
  alignas(32) float b[kColumns] = {};
  for (int64_t c = 0; c < valid && bias != nullptr; ++c) b[c] = bias[c0 + c];
  const __m256 bv = _mm256_load_ps(b);
  for (int r = 0; r < MR; ++r) {
    __m256 y = sum[r];
    if (!kAffine) y = _mm256_mul_ps(y, _mm256_load_ps(p.scales));
    y = _mm256_add_ps(y, bv);
    float* o = out + (m0 + r) * w.n + c0;
    if (valid == kColumns) {
      _mm256_storeu_ps(o, y);
    } else {
      alignas(32) float tmp[kColumns];
      _mm256_store_ps(tmp, y);
      std::memcpy(o, tmp, static_cast<size_t>(valid) * sizeof(float));
    }
  }
}

template <bool kAffine>
void strips(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
            int64_t strip_begin, int64_t strip_end, void* scratch) {
  const Panel p = carve(w, scratch);
  for (int64_t strip = strip_begin; strip < strip_end; ++strip) {
    const int64_t c0 = strip * kColumns;
    pack(w, c0, p);
    int64_t m0 = 0;
    for (; m0 + kTileRows <= a.m; m0 += kTileRows) {
      tile<kTileRows, kAffine>(a, w, p, bias, out, c0, m0);
    }
    switch (a.m - m0) {
      case 3:
        tile<3, kAffine>(a, w, p, bias, out, c0, m0);
        break;
      case 2:
        tile<2, kAffine>(a, w, p, bias, out, c0, m0);
        break;
      case 1:
        tile<1, kAffine>(a, w, p, bias, out, c0, m0);
        break;
      default:
        break;
    }
  }
}

void run(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
         int64_t strip_begin, int64_t strip_end, void* scratch) {
  if (w.format == GroupWeightFormat::kAffine4) {
    strips<true>(a, w, bias, out, strip_begin, strip_end, scratch);
  } else {
    strips<false>(a, w, bias, out, strip_begin, strip_end, scratch);
  }
}

}  // namespace

GroupGemmLoops group_gemm_avx2(int bits) {
  if (bits == 8) return {kColumns, panel_bytes, run};
  return {16, group_gemm_f32_avx2_panel_bytes, group_gemm_f32_avx2};
}

}  // namespace quantized
}  // namespace torchedge
