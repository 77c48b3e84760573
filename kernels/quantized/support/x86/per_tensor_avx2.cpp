// AVX2 bodies of the per-tensor quantize/dequantize (contract:
// support/per_tensor_simd.h): the scalar loops' float operations, 32 (then
// 8) elements at a time, in their order. Quantize: multiply by the inverse
// scale, round to nearest even, add the zero point, clamp, NaN -> 0 (max_ps
// would turn NaN into quant_min, so NaN lanes are masked to 0.0 instead),
// truncate to int32. The clamped values lie inside Q's range, so the
// saturating packs never change them. Dequantize: widen, convert (exact),
// subtract the zero point, multiply by the scale.
//
// Only intrinsics here, no inline helpers of the scalar headers: an inline
// function emitted from this -mavx2 file could be the copy the linker keeps
// for the whole program. Compiled with -mavx2 -mfma -ffp-contract=off.
#include <immintrin.h>

#include <type_traits>

#include "kernels/quantized/support/per_tensor_simd.h"

namespace torchedge {
namespace quantized {
namespace {

struct QuantizeConsts {
  __m256 inv, zp, lo, hi;
};

// Eight floats -> eight int32 in [quant_min, quant_max] (0 for NaN).
inline __m256i quantize8(const float* x, const QuantizeConsts& c) {
  __m256 r = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x), c.inv),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm256_add_ps(r, c.zp);
  const __m256 nan = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
  r = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(r, c.lo), c.hi));
  return _mm256_cvttps_epi32(r);
}

template <typename Q>
__m256i pack_bytes(__m256i a, __m256i b) {
  return std::is_signed<Q>::value ? _mm256_packs_epi16(a, b) : _mm256_packus_epi16(a, b);
}

template <typename Q>
__m128i pack_bytes(__m128i a) {
  return std::is_signed<Q>::value ? _mm_packs_epi16(a, a) : _mm_packus_epi16(a, a);
}

template <typename Q>
size_t quantize_bytes(const float* in, Q* out, size_t count, const QuantizeParams<float>& p) {
  const QuantizeConsts c{_mm256_set1_ps(p.inv_scale), _mm256_set1_ps(p.zero_point),
                         _mm256_set1_ps(p.quant_min), _mm256_set1_ps(p.quant_max)};
  // The two in-lane packs leave 4-byte groups in the order 0 2 4 6 1 3 5 7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m256i v0 = quantize8(in + i, c), v1 = quantize8(in + i + 8, c);
    const __m256i v2 = quantize8(in + i + 16, c), v3 = quantize8(in + i + 24, c);
    const __m256i packed =
        pack_bytes<Q>(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permutevar8x32_epi32(packed, order));
  }
  for (; i + 8 <= count; i += 8) {
    const __m256i v = quantize8(in + i, c);
    const __m128i halves =
        _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), pack_bytes<Q>(halves));
  }
  return i;
}

// Eight bytes (sign- or zero-extended as Q) -> (float(q) - zp) * scale.
template <typename Q>
inline __m256 dequantize8(__m128i q8, __m256 scale, __m256 zp) {
  const __m256i q32 =
      std::is_signed<Q>::value ? _mm256_cvtepi8_epi32(q8) : _mm256_cvtepu8_epi32(q8);
  return _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(q32), zp), scale);
}

template <typename Q>
size_t dequantize_bytes(const Q* in, float* out, size_t count, float scale_f, float zp_f) {
  const __m256 scale = _mm256_set1_ps(scale_f);
  const __m256 zp = _mm256_set1_ps(zp_f);
  size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m128i lo = _mm256_castsi256_si128(q), hi = _mm256_extracti128_si256(q, 1);
    _mm256_storeu_ps(out + i, dequantize8<Q>(lo, scale, zp));
    _mm256_storeu_ps(out + i + 8, dequantize8<Q>(_mm_srli_si128(lo, 8), scale, zp));
    _mm256_storeu_ps(out + i + 16, dequantize8<Q>(hi, scale, zp));
    _mm256_storeu_ps(out + i + 24, dequantize8<Q>(_mm_srli_si128(hi, 8), scale, zp));
  }
  for (; i + 8 <= count; i += 8) {
    const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, dequantize8<Q>(q, scale, zp));
  }
  return i;
}

}  // namespace

size_t quantize_per_tensor_avx2(const float* in, int8_t* out, size_t count,
                                const QuantizeParams<float>& p) {
  return quantize_bytes(in, out, count, p);
}

size_t quantize_per_tensor_avx2(const float* in, uint8_t* out, size_t count,
                                const QuantizeParams<float>& p) {
  return quantize_bytes(in, out, count, p);
}

size_t dequantize_per_tensor_avx2(const int8_t* in, float* out, size_t count, float scale,
                                  float zero_point) {
  return dequantize_bytes(in, out, count, scale, zero_point);
}

size_t dequantize_per_tensor_avx2(const uint8_t* in, float* out, size_t count, float scale,
                                  float zero_point) {
  return dequantize_bytes(in, out, count, scale, zero_point);
}

}  // namespace quantized
}  // namespace torchedge
