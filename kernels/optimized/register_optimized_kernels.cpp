// The explicit table of optimized kernels (kernel_list.inc for convolution,
// matrix products and pooling; transformer_kernels.inc for the transformer
// ops; llm_kernels.inc for the decoder-LLM ops). A selective build replaces
// the includes with a generated list.
#include "kernels/optimized/register_optimized_kernels.h"

#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace optimized {
#define TE_OPTIMIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/optimized/kernel_list.inc"
#include "kernels/optimized/transformer_kernels.inc"
#include "kernels/optimized/glue_kernels.inc"
#include "kernels/optimized/llm_kernels.inc"
#include "kernels/optimized/audio_kernels.inc"
#undef TE_OPTIMIZED_KERNEL
}  // namespace optimized

Error register_optimized_kernels() {
  static const Kernel kKernels[] = {
#define TE_OPTIMIZED_KERNEL(name, function) {name, optimized::function},
#include "kernels/optimized/kernel_list.inc"
#include "kernels/optimized/transformer_kernels.inc"
#include "kernels/optimized/glue_kernels.inc"
#include "kernels/optimized/llm_kernels.inc"
#include "kernels/optimized/audio_kernels.inc"
#undef TE_OPTIMIZED_KERNEL
      {nullptr, nullptr},  // keeps the array non-empty while the lists are
  };
  // The sentinel is not registered.
  return register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0]) - 1});
}

}  // namespace torchedge
