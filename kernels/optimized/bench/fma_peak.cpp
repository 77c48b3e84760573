// fma_peak: this core's fp32 FMA throughput in GFLOP/s (not a test).
//
// Twelve independent 8-wide FMA chains (more than latency x issue width on
// current x86 cores) run for ~0.2 s, best of five; each FMA counts 16 flops.
// `make bench` prints its GEMM GFLOP/s against this number, since a quoted
// peak (e.g. one assuming AVX-512) may not match the machine it runs on.
// Built with -mavx2 -mfma on x86-64 only.
#include <immintrin.h>

#include <chrono>
#include <cstdio>

int main() {
  constexpr int kChains = 12;
  constexpr long kSteps = 20'000'000;
  double best = 0.0;
  float sink = 0.0f;
  for (int rep = 0; rep < 5; ++rep) {
    __m256 acc[kChains];
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(static_cast<float>(j));
    const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < kSteps; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], mul, add);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double gflops = kSteps * kChains * 16.0 / seconds * 1e-9;
    best = gflops > best ? gflops : best;
    __m256 sum = acc[0];
    for (int j = 1; j < kChains; ++j) sum = _mm256_add_ps(sum, acc[j]);
    sink += _mm256_cvtss_f32(sum);  // keeps the chains live
  }
  std::printf("fma_peak_gflops_per_core %.1f\n", best);
  return sink == 12345.0f ? 1 : 0;
}
