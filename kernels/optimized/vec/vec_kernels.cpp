// Picks the vector-kernel table for an ISA (see vec_kernels.h).
#include "kernels/optimized/vec/vec_kernels.h"

namespace torchedge {
namespace optimized {

const VecKernels& vec_kernels(Isa isa) {
#ifndef TORCHEDGE_NO_X86_SIMD
  // The AVX tables are compiled on every x86-64 build; each may run only
  // when the CPU has its ISA (detected_isa() is never raised by the env).
  const Isa usable = static_cast<int>(isa) < static_cast<int>(detected_isa()) ? isa : detected_isa();
  switch (usable) {
    case Isa::kAvx512: return avx512_vec_kernels();
    case Isa::kAvx2: return avx2_vec_kernels();
    case Isa::kScalar: break;
  }
#else
  (void)isa;
#endif
  return scalar_vec_kernels();
}

const VecKernels& arm_vec_kernels(ArmIsa isa) {
#if defined(__aarch64__)
  if (usable_arm_isa(isa) >= ArmIsa::kNeon) return neon_vec_kernels();
#else
  (void)isa;
#endif
  return scalar_vec_kernels();
}

const VecKernels& active_vec_kernels() {
#if defined(__aarch64__)
  static const VecKernels& table = arm_vec_kernels(best_arm_isa());
#else
  static const VecKernels& table = vec_kernels(best_isa());
#endif
  return table;
}

}  // namespace optimized
}  // namespace torchedge
