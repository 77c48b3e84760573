// AVX2 + FMA inner loops of the 4-bit linear kernels (compiled with -mavx2
// -mfma; entered only when quant_isa() allows it).
#include <immintrin.h>

#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/simd_sums_x86.h"

// maddubs (u8 * s8 pairs -> int16; |pair| <= 2 * 15 * 128, no saturation),
// then madd with ones (int16 pairs -> int32).
struct Dot {
  static __m256i dot(__m256i acc, __m256i u, __m256i s) {
    const __m256i pairs = _mm256_maddubs_epi16(u, s);
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
};

#include "kernels/quantized/support/x86/int8_int4_tile_x86.h"

// Weight-only: per 32-value block, unpack to sign-extended int8 in k order,
// widen to 4 x 8 floats (shared by the MT rows of the tile) and FMA.
template <int MT>
void f32_int4_tile(const FloatRows& x, const Int4Weight& w, const float* bias, float* out,
                   int64_t n, int64_t m0) {
  const int64_t k = w.k, g = w.group_size, groups = k / g;
  const uint8_t* row = w.packed + n * (k / 2);
  const __m128i low4 = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
  __m256 acc[MT];
  float zero_point_term[MT];
  for (int i = 0; i < MT; ++i) {
    acc[i] = _mm256_setzero_ps();
    zero_point_term[i] = 0.0f;
  }
  for (int64_t gi = 0; gi < groups; ++gi) {
    // Two accumulators per row halve the FMA dependency chain (M = 1 GEMV).
    __m256 gacc[MT], gacc2[MT];
    for (int i = 0; i < MT; ++i) gacc[i] = gacc2[i] = _mm256_setzero_ps();
    for (int64_t kk = gi * g; kk < (gi + 1) * g; kk += 32) {
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + kk / 2));
      const __m128i lo = _mm_sub_epi8(_mm_xor_si128(_mm_and_si128(b, low4), eight), eight);
      const __m128i hi =
          _mm_sub_epi8(_mm_xor_si128(_mm_and_si128(_mm_srli_epi16(b, 4), low4), eight), eight);
      const __m128i first = _mm_unpacklo_epi8(lo, hi);   // k .. k+15
      const __m128i second = _mm_unpackhi_epi8(lo, hi);  // k+16 .. k+31
      const __m256 w0 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(first));
      const __m256 w1 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(first, 8)));
      const __m256 w2 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(second));
      const __m256 w3 = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(second, 8)));
      for (int i = 0; i < MT; ++i) {
        const float* xp = x.x + (m0 + i) * k + kk;
        gacc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(xp), w0, gacc[i]);
        gacc2[i] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 8), w1, gacc2[i]);
        gacc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 16), w2, gacc[i]);
        gacc2[i] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 24), w3, gacc2[i]);
      }
    }
    const float scale = w.scales[n * groups + gi];
    const __m256 ws = _mm256_set1_ps(scale);
    for (int i = 0; i < MT; ++i) acc[i] = _mm256_fmadd_ps(_mm256_add_ps(gacc[i], gacc2[i]), ws, acc[i]);
    if (w.zero_points != nullptr) {
      const float zs = scale * static_cast<float>(w.zero_points[n * groups + gi]);
      for (int i = 0; i < MT; ++i) zero_point_term[i] += zs * x.group_sums[(m0 + i) * groups + gi];
    }
  }
  for (int i = 0; i < MT; ++i) {
    const int64_t m = m0 + i;
    out[m * w.n + n] =
        hsum_ps(acc[i]) - zero_point_term[i] + (bias != nullptr ? bias[n] : 0.0f);
  }
}

}  // namespace

void int4_linear_f32_avx2(const FloatRows& x, const Int4Weight& w, const float* bias, float* out,
                          int64_t n_begin, int64_t n_end) {
  for (int64_t n = n_begin; n < n_end; ++n) {
    int64_t m0 = 0;
    for (; m0 + 4 <= x.m; m0 += 4) f32_int4_tile<4>(x, w, bias, out, n, m0);
    switch (x.m - m0) {
      case 3: f32_int4_tile<3>(x, w, bias, out, n, m0); break;
      case 2: f32_int4_tile<2>(x, w, bias, out, n, m0); break;
      case 1: f32_int4_tile<1>(x, w, bias, out, n, m0); break;
      default: break;
    }
  }
}

void int8_int4_linear_avx2(const Int8Rows& x, const Int4Weight& w, const float* bias,
                           float* out, int64_t n_begin, int64_t n_end) {
  int8_int4_columns(x, w, bias, out, n_begin, n_end);
}

}  // namespace quantized
}  // namespace torchedge
