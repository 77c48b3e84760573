// torchedge/kernels/quantized/support/x86/group_panel_avx512.h
//
// What the AVX-512 GEMM loops of linear_q4a / linear_q8c share
// (group_gemm_avx512vnni.cpp, group_gemm_f32_avx512vnni.cpp): a 16 x 16
// transpose of 32-bit elements and the loads of a weight row as one code
// byte per k. Include only from files compiled with -mavx512f/bw, and
// only inside an anonymous namespace (each translation unit keeps its own
// copy). The includer includes <immintrin.h>, <cstdint>,
// group_linear_loops.h and x86/group_loads_avx512.h first.
#pragma once

// r[i] holds row i (16 x 32-bit); afterwards r[i] holds column i.
inline void transpose16x16_epi32(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // t[0] = (r0 r1 interleaved, elements 0,1 of each 128-bit lane), t[1] = elements 2,3, ...
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      const __m512i a = t[4 * i + j], b = t[4 * i + 2 + j];
      r[4 * i + 2 * j] = _mm512_unpacklo_epi64(a, b);
      r[4 * i + 2 * j + 1] = _mm512_unpackhi_epi64(a, b);
    }
  }
  // r[4i + c] now holds, in each 128-bit lane L, column 4L + c of rows 4i .. 4i + 3.
  for (int c = 0; c < 4; ++c) {
    const __m512i a0 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0x88);  // lanes 0, 2 of each
    const __m512i a1 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0xdd);  // lanes 1, 3
    const __m512i b0 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0x88);
    const __m512i b1 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0xdd);
    t[c] = _mm512_shuffle_i32x4(a0, b0, 0x88);       // lane 0 of rows 0-15: column c
    t[8 + c] = _mm512_shuffle_i32x4(a0, b0, 0xdd);   // lane 2: column 8 + c
    t[4 + c] = _mm512_shuffle_i32x4(a1, b1, 0x88);   // lane 1: column 4 + c
    t[12 + c] = _mm512_shuffle_i32x4(a1, b1, 0xdd);  // lane 3: column 12 + c
  }
  for (int i = 0; i < 16; ++i) r[i] = t[i];
}

// Nibble bytes (q[2i] | q[2i+1] << 4) widened to one code byte per k, in
// k order: each byte becomes a 16-bit lane (b & 0xF) | (b >> 4) << 8.
inline __m512i nibbles_to_codes(__m256i bytes) {
  const __m512i x = _mm512_cvtepu8_epi16(bytes);
  return _mm512_and_si512(_mm512_or_si512(x, _mm512_slli_epi16(x, 4)), _mm512_set1_epi16(0x0F0F));
}
inline __m128i nibbles_to_codes(__m128i bytes8) {
  const __m128i x = _mm_cvtepu8_epi16(bytes8);
  return _mm_and_si128(_mm_or_si128(x, _mm_slli_epi16(x, 4)), _mm_set1_epi16(0x0F0F));
}

// Codes k0 .. k0 + 63 of weight row n, one byte per k: kAffine4's q,
// kInt8Channel's q xor `flip`; bytes past K, and rows past N, are `fill`
// (0 for kAffine4; flip for kInt8Channel).
inline __m512i row_codes64(const torchedge::quantized::GroupLinearWeight& w, int64_t n, int64_t k0,
                           uint8_t flip) {
  const __m512i f = _mm512_set1_epi8(static_cast<char>(flip));
  if (n >= w.n) return f;
  const int64_t valid = w.k - k0 < 64 ? w.k - k0 : 64;
  if (w.format == torchedge::quantized::GroupWeightFormat::kAffine4) {
    const uint8_t* p = w.codes + n * (w.k / 2) + k0 / 2;
    return nibbles_to_codes(load_bytes32(p, valid / 2, w.codes + w.n * (w.k / 2)));
  }
  const uint8_t* p = w.codes + n * w.k + k0;
  return _mm512_xor_si512(load_bytes64(p, valid, w.codes + w.n * w.k), f);
}

// Codes k0 .. k0 + 15 of row n (< N) as bytes (kAffine4 u8 q, kInt8Channel
// int8 q); K % 32 == 0, so they always exist.
inline __m128i row_codes16(const torchedge::quantized::GroupLinearWeight& w, int64_t n,
                           int64_t k0) {
  if (w.format == torchedge::quantized::GroupWeightFormat::kAffine4) {
    return nibbles_to_codes(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w.codes + n * (w.k / 2) + k0 / 2)));
  }
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.codes + n * w.k + k0));
}
