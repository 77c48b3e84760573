// requantize() of support/int8_gemm.h on 32 int8 depthwise outputs held as
// two 16-lane int32 sums, shared by the AVX-512 VNNI per-plane path
// (int8_depthwise_avx512vnni.cpp: one channel's scale and bias for all
// lanes) and the channels-last path (int8_depthwise_channels_avx512vnni.cpp:
// per-lane scales and biases), so both write the bits the scalar path
// writes. Included by AVX-512-compiled units only.
#pragma once

#include <immintrin.h>

#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace quantized {

struct Int8DepthwiseRequantAvx512 {
  __m512 inv, zp, lo, hi;
  __m512i zp16;
  __m256i lo8, hi8;
  explicit Int8DepthwiseRequantAvx512(const Int8DepthwiseProblem& p)
      : inv(_mm512_set1_ps(p.inv_out_scale)), zp(_mm512_set1_ps(p.out_zero_point)),
        lo(_mm512_set1_ps(p.quant_min)), hi(_mm512_set1_ps(p.quant_max)),
        zp16(_mm512_set1_epi16(static_cast<int16_t>(p.out_zero_point))),
        lo8(_mm256_set1_epi8(static_cast<int8_t>(p.quant_min))),
        hi8(_mm256_set1_epi8(static_cast<int8_t>(p.quant_max))) {}

  // (acc * scale (+ bias)) * inv, no FMA.
  template <bool kBias>
  __attribute__((always_inline)) __m512 scaled(__m512i acc, __m512 scale, __m512 bias) const {
    __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
    if (kBias) y = _mm512_add_ps(y, bias);
    return _mm512_mul_ps(y, inv);
  }

  // Round half to even, + zero point, clamp (NaN -> 0).
  template <bool kBias>
  __attribute__((always_inline)) __m512i sixteen(__m512i acc, __m512 scale, __m512 bias) const {
    __m512 r = _mm512_roundscale_ps(scaled<kBias>(acc, scale, bias),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_add_ps(r, zp);
    const __mmask16 number = _mm512_cmp_ps_mask(r, r, _CMP_ORD_Q);
    r = _mm512_maskz_mov_ps(number, _mm512_min_ps(_mm512_max_ps(r, lo), hi));
    return _mm512_cvttps_epi32(r);
  }

  // The 32 bytes in packs(a, b) order. kBounded: |y * inv| < 2^14
  // (int8_depthwise_channel_is_bounded): cvtps2dq rounds half to even, the
  // zero point adds exactly, the saturating narrowing then max/min equal the
  // float clamp.
  template <bool kBias, bool kBounded>
  __attribute__((always_inline)) __m256i thirty_two(__m512i acc_a, __m512 scale_a,
                                                    __m512 bias_a, __m512i acc_b,
                                                    __m512 scale_b, __m512 bias_b) const {
    if (kBounded) {
      const __m512i w =
          _mm512_packs_epi32(_mm512_cvtps_epi32(scaled<kBias>(acc_a, scale_a, bias_a)),
                             _mm512_cvtps_epi32(scaled<kBias>(acc_b, scale_b, bias_b)));
      const __m256i r = _mm512_cvtsepi16_epi8(_mm512_adds_epi16(w, zp16));
      return _mm256_min_epi8(_mm256_max_epi8(r, lo8), hi8);
    }
    const __m512i w = _mm512_packs_epi32(sixteen<kBias>(acc_a, scale_a, bias_a),
                                         sixteen<kBias>(acc_b, scale_b, bias_b));
    return _mm512_cvtsepi16_epi8(w);
  }
};

}  // namespace quantized
}  // namespace torchedge
