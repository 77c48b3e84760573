#include "kernels/optimized/cpu/cpu_features.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
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

#if defined(__x86_64__) && defined(__linux__)
bool probe_amx() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool amx_bf16 = (edx >> 22) & 1, amx_tile = (edx >> 24) & 1;
  unsigned eax1 = 0, ebx1 = 0, ecx1 = 0, edx1 = 0;
  if (!__get_cpuid_count(7, 1, &eax1, &ebx1, &ecx1, &edx1)) return false;
  const bool avx512_bf16 = (eax1 >> 5) & 1;
  if (!amx_bf16 || !amx_tile || !avx512_bf16) return false;
  // Linux keeps the 8 KB tile data out of a thread's state until the
  // process asks for it (XFEATURE_XTILEDATA = 18).
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}
#else
bool probe_amx() { return false; }
#endif

#if defined(__aarch64__) && defined(__linux__)
ArmIsa probe_arm() {
  // Bit numbers of the Linux arm64 ABI (asm/hwcap.h), spelled out so older
  // headers build this too.
  constexpr unsigned long kHwcapAsimd = 1ul << 1, kHwcapAsimdDp = 1ul << 20;
  constexpr unsigned long kHwcap2I8mm = 1ul << 13;
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  if (!(hwcap & kHwcapAsimd)) return ArmIsa::kNone;
  if (!(hwcap & kHwcapAsimdDp)) return ArmIsa::kNeon;
  return (hwcap2 & kHwcap2I8mm) ? ArmIsa::kI8mm : ArmIsa::kDotProd;
}
#elif defined(__aarch64__)
ArmIsa probe_arm() { return ArmIsa::kNeon; }  // Advanced SIMD is part of AArch64
#else
ArmIsa probe_arm() { return ArmIsa::kNone; }
#endif

// TORCHEDGE_ISA, if it names one of `names`' levels below `detected`, else
// `detected` (never raised; an unknown value is ignored).
template <typename Level, size_t N>
Level apply_env_limit(Level detected, const std::pair<const char*, Level> (&names)[N]) {
  const char* env = std::getenv("TORCHEDGE_ISA");
  if (env == nullptr) return detected;
  for (const auto& [name, level] : names) {
    if (std::strcmp(env, name) == 0) {
      return static_cast<int>(level) < static_cast<int>(detected) ? level : detected;
    }
  }
  return detected;
}

}  // namespace

Isa detected_isa() {
  static const Isa isa = probe();  // thread-safe static init
  return isa;
}

Isa best_isa() {
  static const std::pair<const char*, Isa> names[] = {
      {"scalar", Isa::kScalar}, {"avx2", Isa::kAvx2}, {"avx512", Isa::kAvx512}};
  static const Isa isa = apply_env_limit(detected_isa(), names);
  return isa;
}

ArmIsa detected_arm_isa() {
  static const ArmIsa isa = probe_arm();
  return isa;
}

ArmIsa usable_arm_isa(ArmIsa isa) {
  return static_cast<int>(isa) < static_cast<int>(detected_arm_isa()) ? isa : detected_arm_isa();
}

ArmIsa best_arm_isa() {
  static const std::pair<const char*, ArmIsa> names[] = {{"scalar", ArmIsa::kNone},
                                                         {"neon", ArmIsa::kNeon},
                                                         {"dotprod", ArmIsa::kDotProd},
                                                         {"i8mm", ArmIsa::kI8mm}};
  static const ArmIsa isa = apply_env_limit(detected_arm_isa(), names);
  return isa;
}

bool amx_usable() {
  static const bool usable = [] {
    const char* env = std::getenv("TORCHEDGE_ISA");
    if (env != nullptr && std::strcmp(env, "amx") != 0) return false;
    return best_isa() == Isa::kAvx512 && probe_amx();
  }();
  return usable;
}

bool has_simd() {
  return best_isa() >= Isa::kAvx2 || best_arm_isa() >= ArmIsa::kNeon;
}

const char* arm_isa_name(ArmIsa isa) {
  switch (isa) {
    case ArmIsa::kNone: return "none";
    case ArmIsa::kNeon: return "neon";
    case ArmIsa::kDotProd: return "dotprod";
    case ArmIsa::kI8mm: return "i8mm";
  }
  return "unknown";
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
