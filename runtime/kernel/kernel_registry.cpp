#include "runtime/kernel/kernel_registry.h"

#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

namespace {
Kernel g_kernels[kMaxRegisteredKernels];
size_t g_num_kernels = 0;

Kernel* find_slot(const char* name) {
  for (size_t i = 0; i < g_num_kernels; ++i) {
    if (strcmp(g_kernels[i].name, name) == 0) return &g_kernels[i];
  }
  return nullptr;
}
}  // namespace

Error register_kernels(Span<const Kernel> kernels) {
  size_t new_names = 0;
  for (const Kernel& k : kernels) {
    if (find_slot(k.name) == nullptr) ++new_names;
  }
  TE_CHECK_OR_RETURN(g_num_kernels + new_names <= kMaxRegisteredKernels, Error::OutOfResources,
                     "kernel registry full: %zu registered, %zu more requested, capacity %zu",
                     g_num_kernels, new_names, kMaxRegisteredKernels);
  for (const Kernel& k : kernels) {
    Kernel* slot = find_slot(k.name);
    if (slot != nullptr) {
      slot->function = k.function;
    } else {
      g_kernels[g_num_kernels++] = k;
    }
  }
  return Error::Ok;
}

Result<KernelFunction> find_kernel(const char* name) {
  const Kernel* slot = find_slot(name);
  TE_CHECK_OR_RETURN(slot != nullptr, Error::OperatorMissing,
                     "operator '%s' has no registered kernel (%zu kernels registered)", name,
                     g_num_kernels);
  return slot->function;
}

size_t num_registered_kernels() { return g_num_kernels; }
const Kernel& registered_kernel(size_t index) { return g_kernels[index]; }

}  // namespace torchedge
