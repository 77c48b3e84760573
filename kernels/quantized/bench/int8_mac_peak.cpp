// int8_mac_peak: this core's multiply-accumulate throughput for the three
// AVX2 instruction sequences a CPU GEMM can be built on (not a test; run by
// hand). It bounds what int8 can gain over float32 on a host without
// AVX-512 VNNI:
//   fma     vfmadd231ps                      8 float MACs per instruction
//   int16   vpmaddwd + vpaddd               16 exact int8 MACs (operands
//           widened to int16: this repo's AVX2 int8 kernels and its int8
//           Winograd, XNNPACK's too)
//   u8s8    vpmaddubsw + vpmaddwd + vpaddd  32 MACs, but the int16 pair sum
//           saturates once |x1 w1 + x2 w2| > 32767 (u8 x s8 reaches 64770;
//           exact for 7-bit weights)
// Each loop body is assembly: eight independent accumulator chains, every
// multiply issued. (Written first in intrinsics, GCC computed each
// distinct product once per step and spilled the accumulators to the
// stack: that version timed stores and reloads and reported int16 at
// 0.82x fma and u8s8 at 1.64x on Zen 3, where the instructions run at
// 1.57-1.65x and 1.82-1.97x over five runs.) Best of five runs each.
// Zen 1 (AMD family 23, two 128-bit halves per ymm instruction and one
// vector integer multiplier) measured 1.00x and 0.97x: there exact int8
// cannot run faster than float at all.
//
// Usage: int8_mac_peak [steps]  (default 50,000,000 per run; torchedge.bench
// passes fewer and records the three rates with its results).
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

long kSteps = 50'000'000;
constexpr int kChains = 8;

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

#define TE_ACCUMULATORS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7"
#define TE_TEMPS "xmm10", "xmm11", "xmm12", "xmm13"

// acc_i += ymm8 * ymm9 (the operands' values do not change the timing).
#define TE_FMA(i) "vfmadd231ps %%ymm8, %%ymm9, %%ymm" #i "\n\t"
// t = madd(ymm8, ymm9); acc_i += t.
#define TE_INT16(i, t)                             \
  "vpmaddwd %%ymm8, %%ymm9, %%ymm" #t "\n\t"       \
  "vpaddd %%ymm" #t ", %%ymm" #i ", %%ymm" #i "\n\t"
// t = madd(maddubs(ymm8, ymm9), ymm15 = ones); acc_i += t.
#define TE_U8S8(i, t)                                         \
  "vpmaddubsw %%ymm8, %%ymm9, %%ymm" #t "\n\t"                \
  "vpmaddwd %%ymm15, %%ymm" #t ", %%ymm" #t "\n\t"            \
  "vpaddd %%ymm" #t ", %%ymm" #i ", %%ymm" #i "\n\t"

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    char* end = nullptr;
    const long steps = std::strtol(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || steps < 1000) {
      std::fprintf(stderr, "usage: %s [steps >= 1000]\n", argv[0]);
      return 2;
    }
    kSteps = steps;
  }
  const double fma = best_seconds([] {
    for (long i = 0; i < kSteps; ++i) {
      asm volatile(TE_FMA(0) TE_FMA(1) TE_FMA(2) TE_FMA(3) TE_FMA(4) TE_FMA(5) TE_FMA(6) TE_FMA(7)
                   ::: TE_ACCUMULATORS);
    }
  });
  const double int16 = best_seconds([] {
    for (long i = 0; i < kSteps; ++i) {
      asm volatile(TE_INT16(0, 10) TE_INT16(1, 11) TE_INT16(2, 12) TE_INT16(3, 13)
                   TE_INT16(4, 10) TE_INT16(5, 11) TE_INT16(6, 12) TE_INT16(7, 13)
                   ::: TE_ACCUMULATORS, TE_TEMPS);
    }
  });
  const double u8s8 = best_seconds([] {
    for (long i = 0; i < kSteps; ++i) {
      asm volatile(TE_U8S8(0, 10) TE_U8S8(1, 11) TE_U8S8(2, 12) TE_U8S8(3, 13)
                   TE_U8S8(4, 10) TE_U8S8(5, 11) TE_U8S8(6, 12) TE_U8S8(7, 13)
                   ::: TE_ACCUMULATORS, TE_TEMPS);
    }
  });
  const double steps = static_cast<double>(kSteps) * kChains;
  const double fma_rate = steps * 8 / fma;
  std::printf("fma   %6.1f GMAC/s  (float32)\n", fma_rate * 1e-9);
  std::printf("int16 %6.1f GMAC/s  (exact int8 via vpmaddwd) = %.2fx fma\n",
              steps * 16 / int16 * 1e-9, steps * 16 / int16 / fma_rate);
  std::printf("u8s8  %6.1f GMAC/s  (vpmaddubsw, saturating)  = %.2fx fma\n",
              steps * 32 / u8s8 * 1e-9, steps * 32 / u8s8 / fma_rate);
  return 0;
}
