#include "kernels/quantized/support/quant_isa.h"

#include "kernels/optimized/cpu/cpu_features.h"

#if defined(TORCHEDGE_QUANTIZED_X86)
#include <cpuid.h>
#endif

namespace torchedge {
namespace quantized {
namespace {

#if defined(TORCHEDGE_QUANTIZED_X86)
bool cpu_has_avx512_vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx >> 11) & 1;  // AVX512_VNNI
}
#endif

QuantIsa choose() {
#if defined(TORCHEDGE_QUANTIZED_X86)
  switch (optimized::best_isa()) {
    case optimized::Isa::kAvx512:
      return cpu_has_avx512_vnni() ? QuantIsa::kAvx512Vnni : QuantIsa::kAvx2;
    case optimized::Isa::kAvx2: return QuantIsa::kAvx2;
    case optimized::Isa::kScalar: return QuantIsa::kScalar;
  }
#endif
  return QuantIsa::kScalar;
}

}  // namespace

QuantIsa quant_isa() {
  static const QuantIsa isa = choose();
  return isa;
}

const char* quant_isa_name(QuantIsa isa) {
  switch (isa) {
    case QuantIsa::kScalar: return "scalar";
    case QuantIsa::kAvx2: return "avx2";
    case QuantIsa::kAvx512Vnni: return "avx512vnni";
  }
  return "unknown";
}

}  // namespace quantized
}  // namespace torchedge
