// torchedge/kernels/quantized/support/x86/int8_add_avx2.h
//
// The AVX2 form of support/int8_add.h's formula on registers, shared by
// add_int8_avx2.cpp (torchedge::add_int8) and the residual epilogue of
// int8_conv_avx2.cpp (torchedge::conv2d_add_int8), so both compute the
// scalar path's float operations in its order: convert, subtract the zero
// point, multiply by the scale (each operand); add; multiply by the inverse
// output scale, round to nearest even, add the zero point, clamp; NaN -> 0.
// Include only from files compiled with -mavx2 (and -ffp-contract=off).
#pragma once

#include <immintrin.h>

#include "kernels/quantized/support/int8_add.h"

namespace torchedge {
namespace quantized {

class Int8AddAvx2 {
 public:
  /// The scales, zero points and output parameters of `p` (its pointers
  /// are not read).
  explicit Int8AddAvx2(const Int8AddProblem& p)
      : a_scale_(_mm256_set1_ps(static_cast<float>(p.a_scale))),
        a_zp_(_mm256_set1_ps(static_cast<float>(p.a_zero_point))),
        b_scale_(_mm256_set1_ps(static_cast<float>(p.b_scale))),
        b_zp_(_mm256_set1_ps(static_cast<float>(p.b_zero_point))),
        inv_(_mm256_set1_ps(p.out_params.inv_scale)),
        zp_(_mm256_set1_ps(p.out_params.zero_point)),
        lo_(_mm256_set1_ps(p.out_params.quant_min)),
        hi_(_mm256_set1_ps(p.out_params.quant_max)) {}

  /// add(a, b) for 8 lanes given as int32 values of int8 (in [-128, 127]):
  /// 8 int32 results in [qmin, qmax]. The conv epilogue passes its
  /// requantized int32 lanes here directly (no pack to int8 and back).
  __m256i eight(__m256i a32, __m256i b32) const {
    const __m256 fa = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(a32), a_zp_), a_scale_);
    const __m256 fb = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(b32), b_zp_), b_scale_);
    __m256 r = _mm256_round_ps(_mm256_mul_ps(_mm256_add_ps(fa, fb), inv_),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_add_ps(r, zp_);
    const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
    r = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(r, lo_), hi_));
    return _mm256_cvttps_epi32(r);
  }

  /// The 8 int8 at `p`, sign-extended to int32 lanes.
  static __m256i load8(const int8_t* p) {
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }

  /// Four eight() results (lanes 0-7, 8-15, 16-23, 24-31) as 32 int8 in order.
  static __m256i pack32(__m256i v0, __m256i v1, __m256i v2, __m256i v3) {
    // packs_epi32 + packs_epi16 leave 4-byte groups in the order 0 2 4 6 1 3 5 7.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256i packed =
        _mm256_packs_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
    return _mm256_permutevar8x32_epi32(packed, order);
  }

 private:
  __m256 a_scale_, a_zp_, b_scale_, b_zp_, inv_, zp_, lo_, hi_;
};

}  // namespace quantized
}  // namespace torchedge
