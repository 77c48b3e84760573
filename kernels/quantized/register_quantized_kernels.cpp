// The explicit table of quantized kernels (see quantized_kernels.inc); a
// selective build replaces the include with the lines a model uses.
#include "kernels/quantized/register_quantized_kernels.h"

#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace native {
#define TE_QUANTIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/quantized/quantized_kernels.inc"
#undef TE_QUANTIZED_KERNEL
}  // namespace native

Error register_quantized_kernels() {
  static const Kernel kKernels[] = {
#define TE_QUANTIZED_KERNEL(name, function) {name, native::function},
#include "kernels/quantized/quantized_kernels.inc"
#undef TE_QUANTIZED_KERNEL
  };
  return register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0])});
}

}  // namespace torchedge
