#include "kernels/optimized/cpu/cpu_features.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace torchedge {
namespace optimized {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// XCR0 via xgetbv, written as inline asm so this file needs no -mxsave.
unsigned long long read_xcr0() {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

Isa probe() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return Isa::kScalar;
  const bool fma = (ecx >> 12) & 1;
  const bool osxsave = (ecx >> 27) & 1;
  const bool avx = (ecx >> 28) & 1;
  if (!osxsave || !avx || !fma) return Isa::kScalar;
  const unsigned long long xcr0 = read_xcr0();
  if ((xcr0 & 0x6) != 0x6) return Isa::kScalar;  // XMM + YMM state saved by the OS
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return Isa::kScalar;
  const bool avx2 = (ebx >> 5) & 1;
  if (!avx2) return Isa::kScalar;
  const bool avx512 = ((ebx >> 16) & 1) && ((ebx >> 17) & 1) && ((ebx >> 30) & 1) &&
                      ((ebx >> 31) & 1);  // F, DQ, BW, VL
  const bool zmm_saved = (xcr0 & 0xe0) == 0xe0;  // opmask + upper ZMM state
  return avx512 && zmm_saved ? Isa::kAvx512 : Isa::kAvx2;
}
#else
Isa probe() { return Isa::kScalar; }
#endif

Isa apply_env_limit(Isa detected) {
  const char* env = std::getenv("TORCHEDGE_ISA");
  if (env == nullptr) return detected;
  Isa wanted = detected;
  if (std::strcmp(env, "scalar") == 0) wanted = Isa::kScalar;
  else if (std::strcmp(env, "avx2") == 0) wanted = Isa::kAvx2;
  else if (std::strcmp(env, "avx512") == 0) wanted = Isa::kAvx512;
  return static_cast<int>(wanted) < static_cast<int>(detected) ? wanted : detected;
}

}  // namespace

Isa detected_isa() {
  static const Isa isa = probe();  // thread-safe static init
  return isa;
}

Isa best_isa() {
  static const Isa isa = apply_env_limit(detected_isa());
  return isa;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return "scalar";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
  }
  return "unknown";
}

}  // namespace optimized
}  // namespace torchedge
