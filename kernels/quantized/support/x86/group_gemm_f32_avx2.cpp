// AVX2 GEMM loops of linear_q4a / linear_q8c with float32 activations
// (activation_bits 32, support/group_linear.h), more than group_gemv_rows() rows: per strip of
// 16 output columns the worker dequantizes the weights into its panel,
// float32 [K][16] (q4a: q * scale + min, q8c: q * scale, each step rounded
// as eager's dequantization), through 8 x 8 transposes; tiles of 6 rows x
// 16 columns FMA a broadcast activation against two panel vectors per k
// (12 accumulators; the broadcast is _mm256_set1_ps of a loaded float:
// through _mm256_broadcast_ss(pointer) GCC 12 stored every accumulator on
// each k step, 3x slower). Compiled with -mavx2 -mfma -mf16c.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/group_panel_avx2.h"

constexpr int64_t kColumns = 16;
constexpr int kTileRows = 6;

struct Panel {
  float* weights;  // [K][16]
};

Panel carve(void* scratch) {
  return {reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch) + 63) & ~uintptr_t{63})};
}

void pack(const GroupLinearWeight& w, int64_t c0, const Panel& p) {
  const bool affine = w.format == GroupWeightFormat::kAffine4;
  const int64_t groups = w.groups(), g = w.group_size;
  for (int h = 0; h < 2; ++h) {
    for (int64_t k0 = 0; k0 < w.k; k0 += 8) {
      __m256i r[8];
      for (int i = 0; i < 8; ++i) {
        const int64_t n = c0 + 8 * h + i;
        __m256 v = _mm256_setzero_ps();
        if (n < w.n && affine) {
          const float scale = _cvtsh_ss(w.scales16[n * groups + k0 / g]);
          const float min = _cvtsh_ss(w.mins16[n * groups + k0 / g]);
          v = _mm256_add_ps(
              _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(row_codes8(w, n, k0))),
                            _mm256_set1_ps(scale)),
              _mm256_set1_ps(min));
        } else if (n < w.n) {
          v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(row_codes8(w, n, k0))),
                            _mm256_set1_ps(w.row_scales[n]));
        }
        r[i] = _mm256_castps_si256(v);
      }
      transpose8x8_epi32(r);
      for (int t = 0; t < 8; ++t) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(p.weights + (k0 + t) * kColumns + 8 * h),
                           r[t]);
      }
    }
  }
}

template <int MR>
void tile(const GroupActs& a, const GroupLinearWeight& w, const Panel& p, const float* bias,
          float* out, int64_t c0, int64_t m0) {
  const int64_t k = w.k;
  __m256 acc[MR][2];
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  const float* x = a.x + m0 * k;
  for (int64_t i = 0; i < k; ++i) {
    const __m256 w0 = _mm256_load_ps(p.weights + i * kColumns);
    const __m256 w1 = _mm256_load_ps(p.weights + i * kColumns + 8);
    for (int r = 0; r < MR; ++r) {
      const __m256 xb = _mm256_set1_ps(x[r * k + i]);
      acc[r][0] = _mm256_fmadd_ps(w0, xb, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(w1, xb, acc[r][1]);
    }
  }
  const int64_t valid = w.n - c0 < kColumns ? w.n - c0 : kColumns;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(valid)), lane);
  const __m256i hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(valid - 8)), lane);
  const __m256 b0 = bias != nullptr ? _mm256_maskload_ps(bias + c0, lo) : _mm256_setzero_ps();
  const __m256 b1 = bias != nullptr ? _mm256_maskload_ps(bias + c0 + 8, hi) : _mm256_setzero_ps();
  for (int r = 0; r < MR; ++r) {
    float* o = out + (m0 + r) * w.n + c0;
    _mm256_maskstore_ps(o, lo, _mm256_add_ps(acc[r][0], b0));
    _mm256_maskstore_ps(o + 8, hi, _mm256_add_ps(acc[r][1], b1));
  }
}

}  // namespace

size_t group_gemm_f32_avx2_panel_bytes(const GroupLinearWeight& w, int /*bits*/) {
  return static_cast<size_t>(w.k) * kColumns * 4 + 64;
}

void group_gemm_f32_avx2(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
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
