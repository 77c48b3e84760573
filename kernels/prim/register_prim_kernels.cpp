// The explicit table of primitive kernels (see prim_kernel_list.inc).
#include "kernels/prim/prim_kernels.h"

#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace prim {
#define TE_PRIM_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/prim/prim_kernel_list.inc"
#undef TE_PRIM_KERNEL
}  // namespace prim

Error register_prim_kernels() {
  static const Kernel kKernels[] = {
#define TE_PRIM_KERNEL(name, function) {name, prim::function},
#include "kernels/prim/prim_kernel_list.inc"
#undef TE_PRIM_KERNEL
  };
  return register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0])});
}

}  // namespace torchedge
