#include "runtime/kernel/kernel_registry.h"

#include <cstring>

#include "runtime/core/error_message.h"
#include "runtime/core/spin_lock.h"

namespace torchedge {

namespace {
Kernel g_kernels[kMaxRegisteredKernels];
size_t g_num_kernels = 0;

KernelDtypes g_dtypes[kMaxRegisteredKernels];
size_t g_num_dtypes = 0;
bool g_dtype_checks = true;

SpinLock g_lock;
#if defined(TORCHEDGE_NO_THREAD_LOCAL)  // bare metal: one thread (error.cpp)
size_t t_lock_depth = 0;
#else
thread_local size_t t_lock_depth = 0;  // KernelRegistryLocks this thread holds
#endif

KernelDtypes* find_dtypes(const char* name) {
  for (size_t i = 0; i < g_num_dtypes; ++i) {
    if (strcmp(g_dtypes[i].name, name) == 0) return &g_dtypes[i];
  }
  return nullptr;
}

Kernel* find_slot(const char* name) {
  for (size_t i = 0; i < g_num_kernels; ++i) {
    if (strcmp(g_kernels[i].name, name) == 0) return &g_kernels[i];
  }
  return nullptr;
}
}  // namespace

KernelRegistryLock::KernelRegistryLock() {
  if (t_lock_depth++ == 0) g_lock.lock();
}

KernelRegistryLock::~KernelRegistryLock() {
  if (--t_lock_depth == 0) g_lock.unlock();
}

Error register_kernels(Span<const Kernel> kernels) {
  const KernelRegistryLock lock;
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
  const KernelRegistryLock lock;
  const Kernel* slot = find_slot(name);
  TE_CHECK_OR_RETURN(slot != nullptr, Error::OperatorMissing,
                     "operator '%s' has no registered kernel (%zu kernels registered)", name,
                     g_num_kernels);
  return slot->function;
}

Error register_kernel_dtypes(Span<const KernelDtypes> table) {
  const KernelRegistryLock lock;
  size_t new_names = 0;
  for (const KernelDtypes& d : table) {
    if (find_dtypes(d.name) == nullptr) ++new_names;
  }
  TE_CHECK_OR_RETURN(g_num_dtypes + new_names <= kMaxRegisteredKernels, Error::OutOfResources,
                     "kernel dtype table full: %zu recorded, %zu more requested, capacity %zu",
                     g_num_dtypes, new_names, kMaxRegisteredKernels);
  for (const KernelDtypes& d : table) {
    KernelDtypes* slot = find_dtypes(d.name);
    if (slot != nullptr) {
      slot->dtypes = d.dtypes;
    } else {
      g_dtypes[g_num_dtypes++] = d;
    }
  }
  return Error::Ok;
}

void set_kernel_dtype_checks(bool enabled) {
  const KernelRegistryLock lock;
  g_dtype_checks = enabled;
}

DtypeMask kernel_dtypes(const char* name) {
  const KernelRegistryLock lock;
  if (!g_dtype_checks) return kAnyDtype;
  const KernelDtypes* slot = find_dtypes(name);
  return slot == nullptr ? kAnyDtype : slot->dtypes;
}

size_t num_registered_kernels() {
  const KernelRegistryLock lock;
  return g_num_kernels;
}

const Kernel& registered_kernel(size_t index) {
  const KernelRegistryLock lock;
  return g_kernels[index];
}

}  // namespace torchedge
