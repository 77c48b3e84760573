// requantize() of support/int8_gemm.h on int8 outputs held as 8-lane int32
// sums, shared by the AVX2 depthwise paths (int8_depthwise_avx2.cpp: one
// channel's scale and bias for all lanes; int8_depthwise_channels_avx2.cpp:
// per-lane scales and biases) and the AVX2 convolution epilogue's integer
// form (int8_conv_avx2.cpp), so all write the bits the scalar paths write.
// Included by AVX2-compiled units only.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace torchedge {
namespace quantized {

struct Int8RequantAvx2 {
  __m256 inv, zp, lo, hi;
  __m128i zp16, lo8, hi8;
  __m256i zp16x2, lo8x2, hi8x2;  // the same in 256 bits (thirty_two_bounded)
  // Problem: Int8DepthwiseProblem or Int8ConvProblem (inv_out_scale,
  // out_zero_point, quant_min, quant_max).
  template <typename Problem>
  explicit Int8RequantAvx2(const Problem& p)
      : inv(_mm256_set1_ps(p.inv_out_scale)), zp(_mm256_set1_ps(p.out_zero_point)),
        lo(_mm256_set1_ps(p.quant_min)), hi(_mm256_set1_ps(p.quant_max)),
        zp16(_mm_set1_epi16(static_cast<int16_t>(p.out_zero_point))),
        lo8(_mm_set1_epi8(static_cast<int8_t>(p.quant_min))),
        hi8(_mm_set1_epi8(static_cast<int8_t>(p.quant_max))),
        zp16x2(_mm256_set1_epi16(static_cast<int16_t>(p.out_zero_point))),
        lo8x2(_mm256_set1_epi8(static_cast<int8_t>(p.quant_min))),
        hi8x2(_mm256_set1_epi8(static_cast<int8_t>(p.quant_max))) {}

  // (acc * scale (+ bias)) * inv, no FMA.
  template <bool kBias>
  __attribute__((always_inline)) __m256 scaled(__m256i acc, __m256 scale, __m256 bias) const {
    __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), scale);
    if (kBias) y = _mm256_add_ps(y, bias);
    return _mm256_mul_ps(y, inv);
  }

  // Round half to even, + zero point, clamp (NaN -> 0).
  template <bool kBias>
  __attribute__((always_inline)) __m256i eight(__m256i acc, __m256 scale, __m256 bias) const {
    __m256 r = _mm256_round_ps(scaled<kBias>(acc, scale, bias),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_add_ps(r, zp);
    const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
    r = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(r, lo), hi));
    return _mm256_cvttps_epi32(r);
  }

  // The 16 bytes of packs(a, b) order. kBounded: the same result in
  // integers, for a channel where |y * inv| < 2^14 is guaranteed
  // (int8_depthwise_channel_is_bounded): then round-half-even of y * inv is
  // cvtps2dq's (default rounding), the zero point adds exactly, and the
  // saturating packs then max/min equal the float clamp.
  template <bool kBias, bool kBounded>
  __attribute__((always_inline)) __m128i sixteen(__m256i acc_a, __m256 scale_a, __m256 bias_a,
                                                 __m256i acc_b, __m256 scale_b,
                                                 __m256 bias_b) const {
    if (kBounded) {
      const __m256i w =
          _mm256_packs_epi32(_mm256_cvtps_epi32(scaled<kBias>(acc_a, scale_a, bias_a)),
                             _mm256_cvtps_epi32(scaled<kBias>(acc_b, scale_b, bias_b)));
      const __m128i r = _mm_packs_epi16(_mm_adds_epi16(_mm256_castsi256_si128(w), zp16),
                                        _mm_adds_epi16(_mm256_extracti128_si256(w, 1), zp16));
      return _mm_min_epi8(_mm_max_epi8(r, lo8), hi8);
    }
    const __m256i w = _mm256_packs_epi32(eight<kBias>(acc_a, scale_a, bias_a),
                                         eight<kBias>(acc_b, scale_b, bias_b));
    return _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  }

  // The integer form of sixteen() on two groups of 16 lanes (a0, a1 with
  // scale_a / bias_a; b0, b1 with b's), the 32 bytes of
  // packs_epi16(packs_epi32(a0, a1), packs_epi32(b0, b1)). Exact when
  // |y * inv| < 2^31 and y is never NaN: past int16 the saturating packs and
  // add keep the sign, so the clamp gives the float formula's end.
  template <bool kBias>
  __attribute__((always_inline)) __m256i thirty_two_bounded(__m256i a0, __m256i a1,
                                                            __m256 scale_a, __m256 bias_a,
                                                            __m256i b0, __m256i b1,
                                                            __m256 scale_b,
                                                            __m256 bias_b) const {
    const __m256i a = _mm256_adds_epi16(
        _mm256_packs_epi32(_mm256_cvtps_epi32(scaled<kBias>(a0, scale_a, bias_a)),
                           _mm256_cvtps_epi32(scaled<kBias>(a1, scale_a, bias_a))),
        zp16x2);
    const __m256i b = _mm256_adds_epi16(
        _mm256_packs_epi32(_mm256_cvtps_epi32(scaled<kBias>(b0, scale_b, bias_b)),
                           _mm256_cvtps_epi32(scaled<kBias>(b1, scale_b, bias_b))),
        zp16x2);
    return _mm256_min_epi8(_mm256_max_epi8(_mm256_packs_epi16(a, b), lo8x2), hi8x2);
  }
};

}  // namespace quantized
}  // namespace torchedge
