// torchedge/kernels/quantized/support/x86/int8_conv_quads_x86.h
//
// How the u8 x s8 int8 convolution paths pack a strip's im2col rows: four
// rows k .. k + 3 interleaved bytewise into [16 px][4 k] quads of u8
// (x + 128, i.e. x xor 0x80), 64 bytes per quad, the operand layout of
// one vpdpbusd (AVX-512 VNNI, int8_conv_avx512vnni.cpp) or one vpmaddubsw +
// vpmaddwd pair (AVX2 with 7-bit weights, int8_conv_u8_avx2.cpp). Included
// inside each unit's anonymous namespace after int8_conv_strips_x86.h, like
// that header (one copy per ISA). SSE / AVX2 code only.

// Rows k .. k + 3 of a strip (16 int8 each) into one quad of b: 16 pixels x
// 4 k, shifted to u8 (x + 128).
inline void store_quad(__m128i r0, __m128i r1, __m128i r2, __m128i r3, uint8_t* b) {
  const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
  const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i lo = _mm256_set_m128i(_mm_unpackhi_epi16(lo01, lo23), _mm_unpacklo_epi16(lo01, lo23));
  const __m256i hi = _mm256_set_m128i(_mm_unpackhi_epi16(hi01, hi23), _mm_unpacklo_epi16(hi01, hi23));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b), _mm256_xor_si256(lo, flip));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + 32), _mm256_xor_si256(hi, flip));
}

// The strip's quads [q0, q0 + block) into b ([quad][16][4] u8). rows[k -
// 4 q0]: the base of row k (row_bases). Rows k >= K meet zero weights: any
// value will do.
void pack_block(const Int8ConvProblem& p, const StripPlan& sp, const int8_t* const* rows,
                int64_t q0, int64_t block, uint8_t* b) {
  const int64_t rows_left = p.k() - 4 * q0;
  const int64_t full = std::min(block, rows_left / 4);
  int64_t q = 0;
  if (sp.mode == RowMode::kStride1 && sp.nseg == 1) {
    const int64_t off = sp.seg_offset[0];
    for (; q < full; ++q) {
      const int8_t* const* r = rows + 4 * q;
      store_quad(load128(r[0] + off), load128(r[1] + off), load128(r[2] + off),
                 load128(r[3] + off), b + q * 64);
    }
  } else {
    for (; q < full; ++q) {
      const int8_t* const* r = rows + 4 * q;
      store_quad(strip_row(sp, r[0]), strip_row(sp, r[1]), strip_row(sp, r[2]),
                 strip_row(sp, r[3]), b + q * 64);
    }
  }
  for (; q < block; ++q) {  // the last quad, when K % 4 != 0
    __m128i r[4];
    for (int64_t i = 0; i < 4; ++i) {
      r[i] = 4 * q + i < rows_left ? strip_row(sp, rows[4 * q + i]) : _mm_setzero_si128();
    }
    store_quad(r[0], r[1], r[2], r[3], b + q * 64);
  }
}
