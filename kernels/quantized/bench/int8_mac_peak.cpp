// int8_mac_peak: this core's multiply-accumulate throughput for the three
// AVX2 instruction sequences a CPU GEMM can be built on (not a test; run by
// hand). It bounds what int8 can gain over float32 on a host without
// AVX-512 VNNI:
//   fma     vfmadd231ps                      8 float MACs per instruction
//   int16   vpmaddwd + vpaddd               16 exact int8 MACs (operands
//           widened to int16: this repo's AVX2 int8 kernels, XNNPACK's too)
//   u8s8    vpmaddubsw + vpmaddwd + vpaddd  32 MACs, but the int16 pair sum
//           saturates once |x1 w1 + x2 w2| > 32767 (u8 x s8 reaches 64770)
// Ten independent accumulator chains each (with two varying inputs and
// the constants: no spills in 16 ymm); best of five runs.
#include <immintrin.h>

#include <chrono>
#include <cstdio>

namespace {

constexpr int kChains = 10;
constexpr long kSteps = 20'000'000;

template <typename F>
double best_seconds(F&& run) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = t < best ? t : best;
  }
  return best;
}

// Two inputs the compiler must treat as changing each step (so the
// multiplies are not hoisted out of the loop).
#define TE_OPAQUE(v) __asm__ volatile("" : "+x"(v[0]), "+x"(v[1]))

}  // namespace

int main() {
  volatile float float_sink = 0.0f;
  volatile int int_sink = 0;
  const double fma = best_seconds([&] {
    __m256 acc[kChains];
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(static_cast<float>(j));
    __m256 x[2] = {_mm256_set1_ps(0.9999f), _mm256_set1_ps(0.9998f)};
    const __m256 w = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < kSteps; ++i) {
#pragma GCC unroll 10
      for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(x[j & 1], w, acc[j]);
      TE_OPAQUE(x);
    }
    for (int j = 0; j < kChains; ++j) float_sink = float_sink + _mm256_cvtss_f32(acc[j]);
  });
  const double int16 = best_seconds([&] {
    __m256i acc[kChains];
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_epi32(j);
    __m256i x[2] = {_mm256_set1_epi16(1), _mm256_set1_epi16(2)};
    const __m256i w = _mm256_set1_epi16(5);
    for (long i = 0; i < kSteps; ++i) {
#pragma GCC unroll 10
      for (int j = 0; j < kChains; ++j) {
        acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(x[j & 1], w));
      }
      TE_OPAQUE(x);
    }
    for (int j = 0; j < kChains; ++j) int_sink = int_sink + _mm256_extract_epi32(acc[j], 0);
  });
  const double u8s8 = best_seconds([&] {
    __m256i acc[kChains];
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_epi32(j);
    __m256i x[2] = {_mm256_set1_epi8(1), _mm256_set1_epi8(2)};
    const __m256i w = _mm256_set1_epi8(5), ones = _mm256_set1_epi16(1);
    for (long i = 0; i < kSteps; ++i) {
#pragma GCC unroll 10
      for (int j = 0; j < kChains; ++j) {
        const __m256i pairs = _mm256_maddubs_epi16(x[j & 1], w);
        acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(pairs, ones));
      }
      TE_OPAQUE(x);
    }
    for (int j = 0; j < kChains; ++j) int_sink = int_sink + _mm256_extract_epi32(acc[j], 0);
  });
  const double steps = static_cast<double>(kSteps) * kChains;
  std::printf("fma   %6.1f GMAC/s  (float32)\n", steps * 8 / fma * 1e-9);
  std::printf("int16 %6.1f GMAC/s  (exact int8 via vpmaddwd) = %.2fx fma\n",
              steps * 16 / int16 * 1e-9, fma * 16 / (int16 * 8));
  std::printf("u8s8  %6.1f GMAC/s  (vpmaddubsw, saturating)  = %.2fx fma\n",
              steps * 32 / u8s8 * 1e-9, fma * 32 / (u8s8 * 8));
  return 0;
}
