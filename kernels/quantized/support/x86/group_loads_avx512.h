// torchedge/kernels/quantized/support/x86/group_loads_avx512.h
//
// Loads of weight streams for the AVX-512 loops of linear_q4a / linear_q8c.
// The weights come from DRAM, where AVX-512 masked loads stall (AMD Zen 5:
// a GEMV over masked loads ran at 2.5 GB/s instead of ~20): the first n
// elements of a vector are read with a plain load and the rest zeroed in
// registers, unless the vector would run past the end of the tensor (then
// a masked load, which never faults). The plain load is hidden from the
// compiler (an empty asm), which otherwise folds load + masked move back
// into a masked load. Include only from files compiled with
// -mavx512f/bw/vl, inside an anonymous namespace, after <immintrin.h> and
// <cstdint>.
#pragma once

inline __m512i opaque_load512(const void* p) {
  __m512i v = _mm512_loadu_si512(p);
  asm("" : "+v"(v));
  return v;
}
inline __m256i opaque_load256(const void* p) {
  __m256i v = _mm256_loadu_si256(static_cast<const __m256i*>(p));
  asm("" : "+v"(v));
  return v;
}
inline __m128i opaque_load128(const void* p) {
  __m128i v = _mm_loadu_si128(static_cast<const __m128i*>(p));
  asm("" : "+v"(v));
  return v;
}

// n of the 64 bytes at p (the rest 0); [p, end) is readable.
inline __m512i load_bytes64(const uint8_t* p, int64_t n, const uint8_t* end) {
  if (n >= 64) return _mm512_loadu_si512(p);
  const __mmask64 mask = (__mmask64{1} << n) - 1;
  if (p + 64 <= end) return _mm512_maskz_mov_epi8(mask, opaque_load512(p));
  return _mm512_maskz_loadu_epi8(mask, p);
}
inline __m256i load_bytes32(const uint8_t* p, int64_t n, const uint8_t* end) {
  if (n >= 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __mmask32 mask = (__mmask32{1} << n) - 1;
  if (p + 32 <= end) return _mm256_maskz_mov_epi8(mask, opaque_load256(p));
  return _mm256_maskz_loadu_epi8(mask, p);
}
// n of the 16 (8) 16-bit values at p (the rest 0).
inline __m256i load_words16(const uint16_t* p, int64_t n, const uint16_t* end) {
  if (n >= 16) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
  if (p + 16 <= end) return _mm256_maskz_mov_epi16(mask, opaque_load256(p));
  return _mm256_maskz_loadu_epi16(mask, p);
}
inline __m128i load_words8(const uint16_t* p, int64_t n, const uint16_t* end) {
  if (n >= 8) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __mmask8 mask = static_cast<__mmask8>((1u << n) - 1);
  if (p + 8 <= end) return _mm_maskz_mov_epi16(mask, opaque_load128(p));
  return _mm_maskz_loadu_epi16(mask, p);
}
