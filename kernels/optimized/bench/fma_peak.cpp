// fma_peak: this core's fp32 FMA throughput in GFLOP/s (not a test).
//
// Twelve independent FMA chains (more than latency x issue width on current
// x86 cores) run in ~10 ms pieces, best of 50 (on a shared VM long pieces
// rarely land in a quiet moment: best of five 0.1-0.2 s runs read 85
// GFLOP/s zmm while the SGEMM's best 4 ms runs reached 141): 8-wide (ymm, 16 flops per FMA)
// and, with --avx512 on a CPU that has AVX-512 F, 16-wide (zmm, 32 flops)
// on a second line before it. The last word printed stays the ymm figure:
// `make bench` (python/torchedge/bench/environment.py) reads it and prints
// its GEMM GFLOP/s against it. Built with -mavx2 -mfma on x86-64 only; the
// zmm loop is compiled for AVX-512 F by a target attribute.
#include <immintrin.h>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kChains = 12;
constexpr long kSteps = 2'000'000;
constexpr int kReps = 50;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_ymm(float* sink) {
  double best = 0.0;
  for (int rep = 0; rep < kReps; ++rep) {
    __m256 acc[kChains];
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(static_cast<float>(j));
    const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < kSteps; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], mul, add);
    }
    const double gflops = kSteps * kChains * 16.0 / seconds_since(start) * 1e-9;
    best = gflops > best ? gflops : best;
    __m256 sum = acc[0];
    for (int j = 1; j < kChains; ++j) sum = _mm256_add_ps(sum, acc[j]);
    *sink += _mm256_cvtss_f32(sum);  // keeps the chains live
  }
  return best;
}

__attribute__((target("avx512f"))) double peak_zmm(float* sink) {
  double best = 0.0;
  for (int rep = 0; rep < kReps; ++rep) {
    __m512 acc[kChains];
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j));
    const __m512 mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < kSteps; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < kChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], mul, add);
    }
    const double gflops = kSteps * kChains * 32.0 / seconds_since(start) * 1e-9;
    best = gflops > best ? gflops : best;
    __m512 sum = acc[0];
    for (int j = 1; j < kChains; ++j) sum = _mm512_add_ps(sum, acc[j]);
    *sink += _mm512_reduce_add_ps(sum);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  float sink = 0.0f;
  if (argc > 1 && !std::strcmp(argv[1], "--avx512") && __builtin_cpu_supports("avx512f")) {
    std::printf("fma_peak_avx512_gflops_per_core %.1f\n", peak_zmm(&sink));
  }
  std::printf("fma_peak_gflops_per_core %.1f\n", peak_ymm(&sink));
  return sink == 12345.0f ? 1 : 0;
}
