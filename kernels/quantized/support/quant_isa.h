// torchedge/kernels/quantized/support/quant_isa.h
//
// Which inner loops the int8 / 4-bit linear kernels use on this CPU.
// Built on kernels/optimized/cpu/cpu_features.h (so TORCHEDGE_ISA=scalar|avx2
// lowers the choice for tests), plus one extra bit: AVX-512 VNNI
// (vpdpbusd) is used only when best_isa() allows AVX-512 and cpuid reports
// AVX512_VNNI. Cached; thread-safe.
#pragma once

namespace torchedge {
namespace quantized {

enum class QuantIsa { kScalar = 0, kAvx2 = 1, kAvx512Vnni = 2 };

QuantIsa quant_isa();

/// "scalar", "avx2" or "avx512vnni".
const char* quant_isa_name(QuantIsa isa);

}  // namespace quantized
}  // namespace torchedge
