// torchedge/kernels/optimized/cpu/cpu_features.h
//
// Which SIMD instruction set the optimized kernels may use on this CPU.
//
// best_isa() probes the CPU once (cpuid, plus xgetbv to check that the OS
// saves the wide registers) and caches the answer. The environment variable
// TORCHEDGE_ISA=scalar|avx2|avx512 may lower the choice (never raise it), so
// tests can run the fallbacks on a machine that has more; an unknown value
// is ignored. Thread-safe.
//
// An ISA is reported only when every extension its kernels are compiled for
// is present: kAvx2 means AVX2 + FMA; kAvx512 means AVX-512 F + DQ + BW + VL.
#pragma once

namespace torchedge {
namespace optimized {

enum class Isa { kScalar = 0, kAvx2 = 1, kAvx512 = 2 };

/// The widest ISA the optimized kernels may use here (see the file comment).
Isa best_isa();

/// "scalar", "avx2" or "avx512".
const char* isa_name(Isa isa);

/// What the CPU supports, ignoring TORCHEDGE_ISA (for reports and tests).
Isa detected_isa();

/// The 64-bit ARM levels, apart from Isa: on aarch64 best_isa() stays
/// kScalar (the x86 kernels compile out) and the kernels that have a NEON
/// path take it where best_arm_isa() allows. Detected on Linux from
/// getauxval: HWCAP asimd, asimddp (kDotProd), HWCAP2 i8mm (kI8mm); each
/// level needs the ones below it. kNone off aarch64. TORCHEDGE_ISA=scalar|
/// neon|dotprod|i8mm lowers the choice as for Isa. Thread-safe.
enum class ArmIsa { kNone = 0, kNeon = 1, kDotProd = 2, kI8mm = 3 };

/// The widest ARM level the kernels may use here.
ArmIsa best_arm_isa();

/// What the CPU supports, ignoring TORCHEDGE_ISA.
ArmIsa detected_arm_isa();

/// `isa`, lowered to detected_arm_isa() where the CPU has less (for the
/// tables and block functions that take a level as an argument).
ArmIsa usable_arm_isa(ArmIsa isa);

/// "none", "neon", "dotprod" or "i8mm".
const char* arm_isa_name(ArmIsa isa);

/// Whether the AMX float32 GEMM (gemm/sgemm_amx.h) may run: an x86-64
/// build on Linux, a CPU with AMX-TILE, AMX-BF16 and AVX512-BF16 whose
/// best_isa() is kAvx512, and the kernel granting this process the tile
/// data state (arch_prctl ARCH_REQ_XCOMP_PERM, asked once). AMX counts as a
/// level above avx512 for TORCHEDGE_ISA: any value but "amx" (avx512
/// included) turns it off. Thread-safe.
bool amx_usable();

/// Whether the SIMD kernels of this build may run: best_isa() at AVX2 or
/// above on x86, best_arm_isa() at NEON or above on aarch64 (the float32
/// SIMD kernels need no more than these baselines).
bool has_simd();

}  // namespace optimized
}  // namespace torchedge
