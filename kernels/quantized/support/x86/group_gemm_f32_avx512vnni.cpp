// AVX-512 GEMM loops of linear_q4a / linear_q8c with float32 activations
// (activation_bits 32, support/group_linear.h), more than group_gemv_rows() rows. Per strip of
// 32 output columns, once per call, the worker dequantizes the weights into
// its panel, float32 [K][32] (q4a: q * scale + min, q8c: q * scale, each
// step rounded as eager's dequantization rounds it), through 16 x 16
// transposes; then tiles of 6 rows x 32 columns FMA a broadcast activation
// against two panel vectors per k (12 accumulators). Columns past N are
// zero and not stored. Only AVX-512F is used; the file is named for the
// ISA level it is entered at (quant_isa() == kAvx512Vnni).
#include <immintrin.h>

#include <cstdint>

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
  float* weights;  // [K][32]
};

Panel carve(void* scratch) {
  return {reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch) + 63) & ~uintptr_t{63})};
}

void pack(const GroupLinearWeight& w, int64_t c0, const Panel& p) {
  const bool affine = w.format == GroupWeightFormat::kAffine4;
  const int64_t groups = w.groups(), g = w.group_size;
  for (int h = 0; h < 2; ++h) {
    for (int64_t k0 = 0; k0 < w.k; k0 += 16) {
      __m512i r[16];
      for (int i = 0; i < 16; ++i) {
        const int64_t n = c0 + 16 * h + i;
        __m512 v = _mm512_setzero_ps();
        if (n < w.n && affine) {
          const __m128i bytes = row_codes16(w, n, k0);
          const float scale = _cvtsh_ss(w.scales16[n * groups + k0 / g]);
          const float min = _cvtsh_ss(w.mins16[n * groups + k0 / g]);
          v = _mm512_add_ps(
              _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes)), _mm512_set1_ps(scale)),
              _mm512_set1_ps(min));
        } else if (n < w.n) {
          v = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(row_codes16(w, n, k0))),
                            _mm512_set1_ps(w.row_scales[n]));
        }
        r[i] = _mm512_castps_si512(v);
      }
      transpose16x16_epi32(r);
      for (int t = 0; t < 16; ++t) {
        _mm512_store_si512(p.weights + (k0 + t) * kColumns + 16 * h, r[t]);
      }
    }
  }
}

template <int MR>
void tile(const GroupActs& a, const GroupLinearWeight& w, const Panel& p, const float* bias,
          float* out, int64_t c0, int64_t m0) {
  const int64_t k = w.k;
  __m512 acc[MR][2];
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  const float* x = a.x + m0 * k;
  for (int64_t i = 0; i < k; ++i) {
    const __m512 w0 = _mm512_load_ps(p.weights + i * kColumns);
    const __m512 w1 = _mm512_load_ps(p.weights + i * kColumns + 16);
    for (int r = 0; r < MR; ++r) {
      const __m512 xb = _mm512_set1_ps(x[r * k + i]);
      acc[r][0] = _mm512_fmadd_ps(w0, xb, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(w1, xb, acc[r][1]);
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
    _mm512_mask_storeu_ps(o, m0k, _mm512_add_ps(acc[r][0], b0));
    _mm512_mask_storeu_ps(o + 16, m1k, _mm512_add_ps(acc[r][1], b1));
  }
}

}  // namespace

size_t group_gemm_f32_avx512vnni_panel_bytes(const GroupLinearWeight& w, int /*bits*/) {
  return static_cast<size_t>(w.k) * kColumns * 4 + 64;
}

void group_gemm_f32_avx512vnni(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                               float* out, int64_t strip_begin, int64_t strip_end, void* scratch) {
  const Panel p = carve(scratch);
  for (int64_t strip = strip_begin; strip < strip_end; ++strip) {
    const int64_t c0 = strip * kColumns;
    pack(w, c0, p);
    int64_t m0 = 0;
    for (; m0 + kTileRows <= a.m; m0 += kTileRows) tile<kTileRows>(a, w, p, bias, out, c0, m0);
    switch (a.m - m0) {
      case 5:
        tile<5>(a, w, p, bias, out, c0, m0);
        break;
      case 4:
        tile<4>(a, w, p, bias, out, c0, m0);
        break;
      case 3:
        tile<3>(a, w, p, bias, out, c0, m0);
        break;
      case 2:
        tile<2>(a, w, p, bias, out, c0, m0);
        break;
      case 1:
        tile<1>(a, w, p, bias, out, c0, m0);
        break;
      default:
        break;
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
