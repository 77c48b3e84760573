// torchedge/kernels/quantized/support/x86/int8_int4_tile_x86.h
//
// The int8 x int4 (8da4w) inner loop, shared by the AVX2 and the AVX-512
// VNNI translation units: each includes this inside an anonymous namespace
// after defining `struct Dot { static __m256i dot(acc, u8, s8); }`
// (acc += sum of 4 adjacent u8*s8 products per int32 lane).
//
// Per 32-value block of a weight row: the 16 packed bytes are split into
// low/high nibbles, XORed with 8 (u = q + 8 in [0, 15], unsigned as
// maddubs/dpbusd need) and interleaved back into k order. With
// off = 8 + wzp, for each group
//   sum (xq - xzp)(q - wzp) = D - off * Sx - xzp * (SAD - g * off)
// where D = sum u * xq (the dot), Sx = sum xq (precomputed per row), SAD =
// sum u (_mm256_sad_epu8). The correction goes into lane 0 so the lanes
// sum to the exact integer; every lane stays below 2^24, so the float
// conversion is exact and the only rounding is scale * integer.

template <int MT>
void int8_int4_tile(const Int8Rows& x, const Int4Weight& w, const float* bias, float* out,
                    int64_t n, int64_t m0) {
  const int64_t k = w.k, g = w.group_size, groups = k / g;
  const uint8_t* row = w.packed + n * (k / 2);
  const __m128i low4 = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
  __m256 facc[MT];
  for (int i = 0; i < MT; ++i) facc[i] = _mm256_setzero_ps();
  for (int64_t gi = 0; gi < groups; ++gi) {
    __m256i iacc[MT];
    for (int i = 0; i < MT; ++i) iacc[i] = _mm256_setzero_si256();
    __m256i sad = _mm256_setzero_si256();
    for (int64_t kk = gi * g; kk < (gi + 1) * g; kk += 32) {
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + kk / 2));
      const __m128i lo = _mm_xor_si128(_mm_and_si128(b, low4), eight);
      const __m128i hi = _mm_xor_si128(_mm_and_si128(_mm_srli_epi16(b, 4), low4), eight);
      const __m256i u = _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
      sad = _mm256_add_epi64(sad, _mm256_sad_epu8(u, _mm256_setzero_si256()));
      for (int i = 0; i < MT; ++i) {
        const __m256i xs =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q + (m0 + i) * k + kk));
        iacc[i] = Dot::dot(iacc[i], u, xs);
      }
    }
    const int32_t wzp = w.zero_points != nullptr ? w.zero_points[n * groups + gi] : 0;
    const int32_t off = 8 + wzp;
    const int32_t sad_sum = static_cast<int32_t>(hsum_epi64(sad));
    const __m256 ws = _mm256_set1_ps(w.scales[n * groups + gi]);
    for (int i = 0; i < MT; ++i) {
      const int64_t m = m0 + i;
      const int32_t corr = off * x.group_sums[m * groups + gi] +
                           x.zero_points[m] * (sad_sum - static_cast<int32_t>(g) * off);
      iacc[i] = _mm256_sub_epi32(iacc[i], _mm256_setr_epi32(corr, 0, 0, 0, 0, 0, 0, 0));
      facc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(iacc[i]), ws, facc[i]);
    }
  }
  for (int i = 0; i < MT; ++i) {
    const int64_t m = m0 + i;
    out[m * w.n + n] = x.scales[m] * hsum_ps(facc[i]) + (bias != nullptr ? bias[n] : 0.0f);
  }
}

void int8_int4_columns(const Int8Rows& x, const Int4Weight& w, const float* bias, float* out,
                       int64_t n_begin, int64_t n_end) {
  for (int64_t n = n_begin; n < n_end; ++n) {
    int64_t m0 = 0;
    for (; m0 + 4 <= x.m; m0 += 4) int8_int4_tile<4>(x, w, bias, out, n, m0);
    switch (x.m - m0) {
      case 3: int8_int4_tile<3>(x, w, bias, out, n, m0); break;
      case 2: int8_int4_tile<2>(x, w, bias, out, n, m0); break;
      case 1: int8_int4_tile<1>(x, w, bias, out, n, m0); break;
      default: break;
    }
  }
}
