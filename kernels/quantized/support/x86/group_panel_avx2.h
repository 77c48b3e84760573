// torchedge/kernels/quantized/support/x86/group_panel_avx2.h
//
// What the AVX2 GEMM loops of linear_q4a / linear_q8c share
// (group_gemm_avx2.cpp, group_gemm_f32_avx2.cpp): an 8 x 8 transpose of
// 32-bit elements and the loads of a weight row as one code byte per k. Include only from files
// compiled with -mavx2, and only inside an anonymous namespace. The includer includes
// <immintrin.h>, <cstdint>, <cstring> and group_linear_loops.h first.
#pragma once

// r[i] holds row i (8 x 32-bit); afterwards r[i] holds column i.
inline void transpose8x8_epi32(__m256i r[8]) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  // u[4i + c], 128-bit lane L: column 4L + c of rows 4i .. 4i + 3.
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x20);
    r[4 + c] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x31);
  }
}

// Nibble bytes (q[2i] | q[2i+1] << 4) widened to one code byte per k, in
// k order: each byte becomes a 16-bit lane (b & 0xF) | (b >> 4) << 8.
inline __m256i nibbles_to_codes(__m128i bytes) {
  const __m256i x = _mm256_cvtepu8_epi16(bytes);
  return _mm256_and_si256(_mm256_or_si256(x, _mm256_slli_epi16(x, 4)), _mm256_set1_epi16(0x0F0F));
}
inline __m128i nibbles_to_codes8(__m128i bytes4) {
  const __m128i x = _mm_cvtepu8_epi16(bytes4);
  return _mm_and_si128(_mm_or_si128(x, _mm_slli_epi16(x, 4)), _mm_set1_epi16(0x0F0F));
}

// Codes k0 .. k0 + 31 of weight row n, one byte per k (kAffine4 u8 q,
// kInt8Channel int8 q); rows past N are 0. K % 32 == 0: always whole.
inline __m256i row_codes32(const torchedge::quantized::GroupLinearWeight& w, int64_t n,
                           int64_t k0) {
  if (n >= w.n) return _mm256_setzero_si256();
  if (w.format == torchedge::quantized::GroupWeightFormat::kAffine4) {
    return nibbles_to_codes(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.codes + n * (w.k / 2) + k0 / 2)));
  }
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.codes + n * w.k + k0));
}

// Codes k0 .. k0 + 7 of row n (< N) in the low 8 bytes.
inline __m128i row_codes8(const torchedge::quantized::GroupLinearWeight& w, int64_t n, int64_t k0) {
  if (w.format == torchedge::quantized::GroupWeightFormat::kAffine4) {
    int32_t v;
    std::memcpy(&v, w.codes + n * (w.k / 2) + k0 / 2, sizeof(v));
    return nibbles_to_codes8(_mm_cvtsi32_si128(v));
  }
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.codes + n * w.k + k0));
}

// Eight float16 values p[0, count) (the rest 0) as floats; [p, end) readable.
inline __m256 halves8(const uint16_t* p, int64_t count, const uint16_t* end) {
  if (count >= 8) return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  if (p + 8 <= end) {
    const __m128i lane = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_cvtph_ps(
        _mm_and_si128(v, _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<int16_t>(count)), lane)));
  }
  alignas(16) uint16_t tmp[8] = {};
  for (int64_t i = 0; i < count; ++i) tmp[i] = p[i];
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(tmp)));
}
