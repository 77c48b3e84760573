// vnni_mac_peak: this core's vpdpbusd (AVX-512 VNNI: u8 x s8, 4 products
// summed into each int32 lane, exact) throughput on 512- and 256-bit vectors,
// next to 512-bit vfmadd231ps (not a test; run by hand; int8_mac_peak has
// the AVX2 sequences). Twelve independent accumulator chains, each loop
// body assembly (so every instruction is issued), best of five runs. Exits
// with a message on a CPU without AVX-512 VNNI.
//
// Usage: vnni_mac_peak [steps]  (default 20,000,000 per run)
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "kernels/quantized/support/quant_isa.h"

namespace {

long kSteps = 20'000'000;
constexpr int kChains = 12;

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

#define TE_CHAINS12(op, w) \
  op(0, w) op(1, w) op(2, w) op(3, w) op(4, w) op(5, w) op(6, w) op(7, w) op(8, w) op(9, w) \
  op(10, w) op(11, w)
// acc_i += dpbusd(zmm30, zmm31) (the operands' values do not change the timing).
#define TE_DPBUSD(i, w) "vpdpbusd %%" #w "mm30, %%" #w "mm31, %%" #w "mm" #i "\n\t"
#define TE_FMA(i, w) "vfmadd231ps %%" #w "mm30, %%" #w "mm31, %%" #w "mm" #i "\n\t"
#define TE_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
                    "xmm9", "xmm10", "xmm11"

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
  using torchedge::quantized::QuantIsa;
  if (torchedge::quantized::quant_isa() != QuantIsa::kAvx512Vnni) {
    std::printf("this CPU (or TORCHEDGE_ISA) has no AVX-512 VNNI\n");
    return 0;
  }
  const double zmm = best_seconds([] {
    for (long i = 0; i < kSteps; ++i) asm volatile(TE_CHAINS12(TE_DPBUSD, z) ::: TE_CLOBBERS);
  });
  const double ymm = best_seconds([] {
    for (long i = 0; i < kSteps; ++i) asm volatile(TE_CHAINS12(TE_DPBUSD, y) ::: TE_CLOBBERS);
  });
  const double fma = best_seconds([] {
    for (long i = 0; i < kSteps; ++i) asm volatile(TE_CHAINS12(TE_FMA, z) ::: TE_CLOBBERS);
  });
  const double n = static_cast<double>(kSteps) * kChains;
  std::printf("vpdpbusd zmm %7.1f GMAC/s  (%.2f instructions / ns)\n", n * 64 / zmm * 1e-9, n / zmm * 1e-9);
  std::printf("vpdpbusd ymm %7.1f GMAC/s  (%.2f instructions / ns)\n", n * 32 / ymm * 1e-9, n / ymm * 1e-9);
  std::printf("vfmadd   zmm %7.1f GMAC/s  (float32, %.2f instructions / ns)\n", n * 16 / fma * 1e-9,
              n / fma * 1e-9);
  return 0;
}
