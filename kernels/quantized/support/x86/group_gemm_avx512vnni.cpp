// AVX-512 VNNI GEMM loops of linear_q4a / linear_q8c with int8 activations
// (support/group_linear.h), more than group_gemv_rows() rows (prefill). Per strip of 32 output
// columns, once per call, the worker unpacks the weights into its panel:
//
//   codes   [K/4 quads][2 halves][16 columns][4 k]  u8 (q4a: q; q8c: q + 128)
//   params  q4a: scale, min [G][32] float32; q8c: scale [32]
//
// so one 64-byte load is the u8 operand of vpdpbusd for 16 columns x 4 k,
// against 4 activation bytes broadcast from row m. A tile of 6 rows x 32
// columns keeps 12 int32 accumulators per group and 12 float sums:
//   q4a: D exact per group, sum += s_j * (D * scale) + min * (s_j Sx_j)
//   q8c: each group's accumulators start at -128 * Sx_j (undoing the + 128),
//        sum += s_j * D; out = sum * scale[n].
// Columns past N are padding (codes 0 / q = 0, scale 0) and not stored.
// Compiled with -mavx512f/bw/vl/vnni; entered only when quant_isa() is
// kAvx512Vnni.
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
#include "kernels/quantized/support/x86/group_panel_avx512.h"

constexpr int64_t kColumns = 32;
constexpr int kTileRows = 6;

struct Panel {
  uint8_t* codes;  // [quads padded to 16][2][16][4]
  float* scales;   // q4a [G][32]; q8c [32]
  float* mins;     // q4a [G][32]
};

int64_t padded_k(const GroupLinearWeight& w) { return (w.k + 63) / 64 * 64; }

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
  p.mins = reinterpret_cast<float*>(at + groups * kColumns * 4);
  return p;
}

// table [n, 0, G) float16 of rows c0 .. c0 + 31 (0 past N) into dst
// [G][32] float32, 16 x 16 blocks at a time through the transpose.
void pack_params(const uint16_t* table, const GroupLinearWeight& w, int64_t c0, float* dst) {
  const int64_t groups = w.groups();
  const uint16_t* end = table + w.n * groups;
  for (int h = 0; h < 2; ++h) {
    for (int64_t j0 = 0; j0 < groups; j0 += 16) {
      const int64_t count = groups - j0 < 16 ? groups - j0 : 16;
      __m512i r[16];
      for (int i = 0; i < 16; ++i) {
        const int64_t n = c0 + 16 * h + i;
        const uint16_t* p = table + n * groups + j0;
        const __m256i v = n < w.n ? load_words16(p, count, end) : _mm256_setzero_si256();
        r[i] = _mm512_castps_si512(_mm512_cvtph_ps(v));
      }
      transpose16x16_epi32(r);
      for (int64_t t = 0; t < count; ++t) {
        _mm512_store_si512(dst + (j0 + t) * kColumns + 16 * h, r[t]);
      }
    }
  }
}

// The panel of columns [c0, c0 + 32): per half and 16 quads, 16 rows'
// codes in registers, transposed to 16 quads x 16 columns.
void pack(const GroupLinearWeight& w, int64_t c0, const Panel& p) {
  const bool affine = w.format == GroupWeightFormat::kAffine4;
  const uint8_t flip = affine ? 0 : 0x80;
  for (int h = 0; h < 2; ++h) {
    for (int64_t q0 = 0; 4 * q0 < w.k; q0 += 16) {
      __m512i r[16];
      for (int i = 0; i < 16; ++i) r[i] = row_codes64(w, c0 + 16 * h + i, 4 * q0, flip);
      transpose16x16_epi32(r);
      for (int t = 0; t < 16; ++t) _mm512_store_si512(p.codes + ((q0 + t) * 2 + h) * 64, r[t]);
    }
  }
  if (affine) {
    pack_params(w.scales16, w, c0, p.scales);
    pack_params(w.mins16, w, c0, p.mins);
  } else {
    for (int c = 0; c < kColumns; ++c) p.scales[c] = c0 + c < w.n ? w.row_scales[c0 + c] : 0.0f;
  }
}

// acc += u8 a x s8 b per 32-bit lane. Inline asm with the accumulator as a
// read-write operand: through _mm512_dpbusd_epi32 GCC 12 copies every
// accumulator around each product (as int8_conv_avx512vnni.cpp found).
inline __m512i dpbusd(__m512i acc, __m512i a, __m512i b) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}

inline __m512i broadcast_quad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// Rows [m0, m0 + MR) x the panel's 32 columns.
template <int MR, bool kAffine>
void tile(const GroupActs& a, const GroupLinearWeight& w, const Panel& p, const float* bias,
          float* out, int64_t c0, int64_t m0) {
  const int64_t k = w.k, g = w.group_size, groups = w.groups();
  __m512 sum[MR][2];
  for (int r = 0; r < MR; ++r) sum[r][0] = sum[r][1] = _mm512_setzero_ps();
  for (int64_t j = 0; j < groups; ++j) {
    __m512i acc[MR][2];
    for (int r = 0; r < MR; ++r) {
      acc[r][0] = acc[r][1] = kAffine ? _mm512_setzero_si512()
                                      : _mm512_set1_epi32(-128 * a.sums[(m0 + r) * groups + j]);
    }
    for (int64_t qd = j * g / 4; qd < (j + 1) * g / 4; ++qd) {
      const __m512i w0 = _mm512_load_si512(p.codes + qd * 128);
      const __m512i w1 = _mm512_load_si512(p.codes + qd * 128 + 64);
      for (int r = 0; r < MR; ++r) {
        const __m512i x = broadcast_quad(a.q + (m0 + r) * k + 4 * qd);
        acc[r][0] = dpbusd(acc[r][0], w0, x);
        acc[r][1] = dpbusd(acc[r][1], w1, x);
      }
    }
    if (kAffine) {
      const __m512 sc0 = _mm512_load_ps(p.scales + j * kColumns),
                   sc1 = _mm512_load_ps(p.scales + j * kColumns + 16);
      const __m512 mn0 = _mm512_load_ps(p.mins + j * kColumns),
                   mn1 = _mm512_load_ps(p.mins + j * kColumns + 16);
      for (int r = 0; r < MR; ++r) {
        const __m512 s = _mm512_set1_ps(a.s[(m0 + r) * groups + j]);
        const __m512 t = _mm512_set1_ps(a.s_sums[(m0 + r) * groups + j]);
        sum[r][0] =
            _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc[r][0]), sc0), s, sum[r][0]);
        sum[r][1] =
            _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc[r][1]), sc1), s, sum[r][1]);
        sum[r][0] = _mm512_fmadd_ps(mn0, t, sum[r][0]);
        sum[r][1] = _mm512_fmadd_ps(mn1, t, sum[r][1]);
      }
    } else {
      for (int r = 0; r < MR; ++r) {
        const __m512 s = _mm512_set1_ps(a.s[(m0 + r) * groups + j]);
        sum[r][0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[r][0]), s, sum[r][0]);
        sum[r][1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[r][1]), s, sum[r][1]);
      }
    }
  }
  const int64_t valid = w.n - c0 < kColumns ? w.n - c0 : kColumns;
  const __mmask16 m0k = static_cast<__mmask16>(valid >= 16 ? 0xFFFF : (1u << valid) - 1);
  const __mmask16 m1k =
      static_cast<__mmask16>(valid >= 32 ? 0xFFFF : (valid <= 16 ? 0 : (1u << (valid - 16)) - 1));
  const __m512 b0 = bias != nullptr ? _mm512_maskz_loadu_ps(m0k, bias + c0) : _mm512_setzero_ps();
  const __m512 b1 =
      bias != nullptr ? _mm512_maskz_loadu_ps(m1k, bias + c0 + 16) : _mm512_setzero_ps();
  for (int r = 0; r < MR; ++r) {
    float* o = out + (m0 + r) * w.n + c0;
    __m512 y0 = sum[r][0], y1 = sum[r][1];
    if (!kAffine) {
      y0 = _mm512_mul_ps(y0, _mm512_load_ps(p.scales));
      y1 = _mm512_mul_ps(y1, _mm512_load_ps(p.scales + 16));
    }
    _mm512_mask_storeu_ps(o, m0k, _mm512_add_ps(y0, b0));
    _mm512_mask_storeu_ps(o + 16, m1k, _mm512_add_ps(y1, b1));
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
      case 5:
        tile<5, kAffine>(a, w, p, bias, out, c0, m0);
        break;
      case 4:
        tile<4, kAffine>(a, w, p, bias, out, c0, m0);
        break;
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

GroupGemmLoops group_gemm_avx512vnni(int bits) {
  if (bits == 8) return {kColumns, panel_bytes, run};
  return {kColumns, group_gemm_f32_avx512vnni_panel_bytes, group_gemm_f32_avx512vnni};
}

}  // namespace quantized
}  // namespace torchedge
