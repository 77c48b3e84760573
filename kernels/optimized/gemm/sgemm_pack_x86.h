// torchedge/kernels/optimized/gemm/sgemm_pack_x86.h
//
// Packing pieces shared by the x86 SGEMM micro-kernels whose B strips are
// 16 floats wide (sgemm_avx2.cpp, sgemm_avx512.cpp): an 8 x 8 transpose and
// the transposing packer of a [N, K] weight (B^T row-major, sgemm_driver.h's
// pack_b_cols contract). Each translation unit includes this inside its
// anonymous namespace, so each gets its own copy compiled with its ISA's
// flags (one shared inline definition could be linked from the AVX-512 unit
// into an AVX2-only machine's path). AVX (ymm) code only.
// Needs <immintrin.h>.

// r[i] = row i of an 8 x 8 block -> r[t] = column t.
inline void transpose8(__m256* r) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// B^T row-major ([N, K] weight, column n of B at b + n * ldb) into 16-wide
// strips: 16 columns x 8 k at a time through two 8 x 8 transposes.
inline void pack_b_cols16(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
  constexpr int kNr = 16;
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t s = 0; s < nc; s += kNr) {
    const int64_t cols = nc - s < kNr ? nc - s : kNr;
    const float* src = b + s * ldb;
    float* out = dst + s * kc;
    int64_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      __m256 lo[8], hi[8];
      for (int j = 0; j < 8; ++j) {
        lo[j] = j < cols ? _mm256_loadu_ps(src + j * ldb + k) : zero;
        hi[j] = j + 8 < cols ? _mm256_loadu_ps(src + (j + 8) * ldb + k) : zero;
      }
      transpose8(lo);
      transpose8(hi);
      for (int t = 0; t < 8; ++t) {
        _mm256_storeu_ps(out + (k + t) * kNr, lo[t]);
        _mm256_storeu_ps(out + (k + t) * kNr + 8, hi[t]);
      }
    }
    for (; k < kc; ++k) {
      for (int j = 0; j < kNr; ++j) out[k * kNr + j] = j < cols ? src[j * ldb + k] : 0.0f;
    }
  }
}
