// AVX2 loops of quantize_tensor_int8_shifted and quantize_row_int8_per_token
// (support/activation_quant.h) for inputs that are all finite; the caller runs the scalar loops
// otherwise (NaN/inf reach eager's NaN-propagating min/max and clamp, which
// min_ps/max_ps do not reproduce). On finite inputs every step below is
// exact or rounds as the scalar code does: min/max are exact, x * inv is
// one float multiply (x / scale one float division), _mm256_round_ps(nearest) is torch.round's
// ties-to-even, and the + zp, clamp and conversion act on small integers.
// Compiled with -mavx2 -mfma (no FMA is formed: the file has no a*b+c).
#include <immintrin.h>

#include <cstring>

#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int8_gemm_f32.h"

namespace torchedge {
namespace quantized {

bool finite_min_max_avx2(const float* x, size_t count, float* min_out, float* max_out) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 inf = _mm256_set1_ps(__builtin_inff());
  __m256 lo = _mm256_set1_ps(x[0]), hi = lo, bad = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(v, abs_mask), inf, _CMP_NLT_UQ));
    lo = _mm256_min_ps(lo, v);
    hi = _mm256_max_ps(hi, v);
  }
  if (_mm256_movemask_ps(bad) != 0) return false;
  alignas(32) float l[8], h[8];
  _mm256_store_ps(l, lo);
  _mm256_store_ps(h, hi);
  float mn = l[0], mx = h[0];
  for (int j = 1; j < 8; ++j) {
    mn = l[j] < mn ? l[j] : mn;
    mx = h[j] > mx ? h[j] : mx;
  }
  for (; i < count; ++i) {
    if (!(__builtin_fabsf(x[i]) < __builtin_inff())) return false;
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *min_out = mn;
  *max_out = mx;
  return true;
}

void quantize_panels_avx2(const float* x, int64_t m, int64_t k, float inv_scale,
                          int32_t zero_point, int16_t* shifted) {
  const __m256 inv = _mm256_set1_ps(inv_scale);
  const __m256 zp = _mm256_set1_ps(static_cast<float>(zero_point));
  const __m256 qmin = _mm256_set1_ps(-128.0f), qmax = _mm256_set1_ps(127.0f);
  const __m256i zp_i = _mm256_set1_epi32(zero_point);
  const int64_t k16 = k & ~int64_t{15};
  alignas(32) int16_t row16[16];
  for (int64_t r = 0; r < m; ++r) {
    const float* src = x + r * k;
    // Pair q of this row sits at int32 index first + q * rows-per-panel.
    int32_t* dst = reinterpret_cast<int32_t*>(shifted + int8_gemm_x_index(r, 0, k));
    auto quant8 = [&](const float* p) {
      __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(p), inv),
                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, zp), qmin), qmax);
      return _mm256_sub_epi32(_mm256_cvttps_epi32(v), zp_i);
    };
    for (int64_t i = 0; i < k16; i += 16) {
      // packs works per 128-bit lane: restore k order with a 64-bit permute.
      const __m256i q16 = _mm256_permute4x64_epi64(
          _mm256_packs_epi32(quant8(src + i), quant8(src + i + 8)), 0xd8);
      _mm256_store_si256(reinterpret_cast<__m256i*>(row16), q16);
      for (int q = 0; q < 8; ++q) {
        std::memcpy(dst + (i / 2 + q) * kInt8GemmPanelRows, row16 + 2 * q, sizeof(int32_t));
      }
    }
    if (k16 < k) {  // the tail: 1..15 values (and a 0 pad for odd k) through the same lanes
      alignas(32) float tail[16] = {};
      std::memcpy(tail, src + k16, static_cast<size_t>(k - k16) * sizeof(float));
      const __m256i q16 =
          _mm256_permute4x64_epi64(_mm256_packs_epi32(quant8(tail), quant8(tail + 8)), 0xd8);
      _mm256_store_si256(reinterpret_cast<__m256i*>(row16), q16);
      for (int64_t j = k - k16; j < 16; ++j) row16[j] = 0;
      for (int64_t q = 0; k16 + 2 * q < k; ++q) {
        std::memcpy(dst + (k16 / 2 + q) * kInt8GemmPanelRows, row16 + 2 * q, sizeof(int32_t));
      }
    }
  }
}

void quantize_row_avx2(const float* x, int64_t k, int64_t group_size, float scale, float zero_point,
                       int8_t* q, int32_t* group_sums) {
  const __m256 s = _mm256_set1_ps(scale), zp = _mm256_set1_ps(zero_point);
  const __m256 qmin = _mm256_set1_ps(-128.0f), qmax = _mm256_set1_ps(127.0f);
  // packs work per 128-bit lane: this puts the four 8-value runs back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t g0 = 0, gi = 0; g0 < k; g0 += group_size, ++gi) {
    __m256i sum = _mm256_setzero_si256();
    for (int64_t i = g0; i < g0 + group_size; i += 32) {
      __m256i v[4];
      for (int j = 0; j < 4; ++j) {
        const __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i + 8 * j), s),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v[j] = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r, zp), qmin), qmax));
        sum = _mm256_add_epi32(sum, v[j]);
      }
      const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_permutevar8x32_epi32(bytes, order));
    }
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s4 = _mm_add_epi32(s4, _mm_unpackhi_epi64(s4, s4));
    group_sums[gi] = _mm_cvtsi128_si32(_mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x55)));
  }
}

}  // namespace quantized
}  // namespace torchedge
