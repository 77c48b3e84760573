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
//
// --amx (Linux, a CPU with AMX-BF16) also prints the AMX bfloat16 tile
// product peak (TDPBF16PS, 16 x 16 x 32 per instruction, four independent
// accumulator tiles, float32 accumulation): the ceiling of any bf16 use of
// the matrix unit, e.g. float32 products split into bf16 terms (an exact
// float32 product needs six tile products, a ~1e-5-relative one three).
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

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

// The tile configuration: palette 1, eight tiles of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  unsigned char palette = 1, start_row = 0, reserved[14] = {};
  unsigned short bytes_per_row[16] = {};
  unsigned char rows[16] = {};
};

__attribute__((target("amx-tile,amx-bf16,avx512f"))) double peak_amx_bf16(float* sink) {
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) return 0.0;
  TileConfig config;
  for (int t = 0; t < 8; ++t) config.rows[t] = 16, config.bytes_per_row[t] = 64;
  _tile_loadconfig(&config);
  alignas(64) static unsigned short a[16 * 32], b[16 * 32];
  alignas(64) static float c[16 * 16];
  for (int i = 0; i < 16 * 32; ++i) a[i] = b[i] = 0x3c00;  // bf16 2^-7: sums stay exact
  double best = 0.0;
  constexpr long kTileSteps = 200'000;
  for (int rep = 0; rep < kReps; ++rep) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, a, 64);
    _tile_loadd(5, a, 64);
    _tile_loadd(6, b, 64);
    _tile_loadd(7, b, 64);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < kTileSteps; ++i) {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    const double gflops = kTileSteps * 4 * (16.0 * 16 * 32 * 2) / seconds_since(start) * 1e-9;
    best = gflops > best ? gflops : best;
    _tile_stored(0, c, 64);
    *sink += c[0];
  }
  _tile_release();
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  float sink = 0.0f;
  bool amx = false, avx512 = false;
  for (int i = 1; i < argc; ++i) {
    amx = amx || !std::strcmp(argv[i], "--amx");
    avx512 = avx512 || !std::strcmp(argv[i], "--avx512");
  }
  if (amx && __builtin_cpu_supports("amx-bf16")) {
    std::printf("amx_bf16_peak_gflops_per_core %.1f\n", peak_amx_bf16(&sink));
  }
  if (avx512 && __builtin_cpu_supports("avx512f")) {
    std::printf("fma_peak_avx512_gflops_per_core %.1f\n", peak_zmm(&sink));
  }
  std::printf("fma_peak_gflops_per_core %.1f\n", peak_ymm(&sink));
  return sink == 12345.0f ? 1 : 0;
}
