// The explicit table of portable kernels. Each group's .inc lists
// TE_PORTABLE_KERNEL("aten::op.overload", function) lines; a selective build
// replaces these includes with a generated list of what a model uses.
// kernel_dtypes.inc (generated from operators.toml) records the dtypes each
// kernel is proven for, so load_method can reject a call it cannot run.
#include "kernels/portable/portable_kernels.h"

#include "runtime/core/error_message.h"
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
  static const KernelDtypes kDtypes[] = {
#define TE_KERNEL_DTYPES(name, mask) {name, mask},
#include "kernels/portable/kernel_dtypes.inc"
#undef TE_KERNEL_DTYPES
  };
  TE_RETURN_IF_ERROR(register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0])}));
  return register_kernel_dtypes({kDtypes, sizeof(kDtypes) / sizeof(kDtypes[0])});
}

}  // namespace torchedge
