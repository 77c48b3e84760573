// The explicit table of portable kernels. Each group's .inc lists
// TE_PORTABLE_KERNEL("aten::op.overload", function) lines; a selective build
// replaces these includes with a generated list of what a model uses.
#include "kernels/portable/portable_kernels.h"

#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/kernel_list.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

Error register_portable_kernels() {
  static const Kernel kKernels[] = {
#define TE_PORTABLE_KERNEL(name, function) {name, native::function},
#include "kernels/portable/kernel_list.inc"
#undef TE_PORTABLE_KERNEL
  };
  return register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0])});
}

}  // namespace torchedge
