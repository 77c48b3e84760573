// Picks the vector-kernel table for an ISA (see vec_kernels.h).
#include "kernels/optimized/vec/vec_kernels.h"

namespace torchedge {
namespace optimized {

const VecKernels& vec_kernels(Isa isa) {
#if defined(__x86_64__)
  // The AVX2 table is compiled on every x86-64 build; it may run only when
  // the CPU has AVX2 + FMA (detected_isa() is never raised by the env).
  if (isa != Isa::kScalar && detected_isa() != Isa::kScalar) return avx2_vec_kernels();
#endif
  return scalar_vec_kernels();
}

const VecKernels& active_vec_kernels() {
  static const VecKernels& table = vec_kernels(best_isa());
  return table;
}

}  // namespace optimized
}  // namespace torchedge
