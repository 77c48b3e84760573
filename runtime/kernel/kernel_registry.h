// torchedge/runtime/kernel/kernel_registry.h
//
// The explicit table of operator kernels.
//
// A kernel is named like the ATen out-variant it implements
// ("aten::add.out") and receives its arguments boxed, in the ATen schema's
// order with out arguments last:
//
//     Error add_out(KernelContext& ctx, Span<EValue*> args);
//
// Registration is explicit: a kernel library exposes a
// `register_<library>_kernels()` function that calls register_kernels()
// with a static table. There are no static initializers, so the linker drops
// every library the application does not register and a selective build is
// just a shorter table. Lookup happens once, at Method load; a missing name
// fails the load with Error::OperatorMissing naming the operator.
//
// The registry is a fixed-capacity array (no heap). Registration and lookup
// are safe from any thread (a spin lock guards the table). A caller that
// registers several libraries in a row (portable, then the optimized kernels
// over it, as Module does at every load) holds a KernelRegistryLock across
// them, so a method loading in another thread never binds the half-done
// state (a portable kernel where the optimized one was registered).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {

using KernelFunction = Error (*)(KernelContext& context, Span<EValue*> args);

struct Kernel {
  const char* name;  // "aten::add.out"; must be a string literal (not copied)
  KernelFunction function;
};

/// Capacity of the registry (kernels, and dtype masks). A build that knows
/// its kernels (a microcontroller image: targets/cortex_m) sets
/// TORCHEDGE_MAX_REGISTERED_KERNELS to spare the RAM (16 bytes per slot).
#if defined(TORCHEDGE_MAX_REGISTERED_KERNELS)
constexpr size_t kMaxRegisteredKernels = TORCHEDGE_MAX_REGISTERED_KERNELS;
#else
constexpr size_t kMaxRegisteredKernels = 1024;
#endif

/// Holds the registry for the enclosing scope; other threads' registrations
/// and lookups wait. Nests on one thread (the functions below take it too).
class KernelRegistryLock {
 public:
  KernelRegistryLock();
  ~KernelRegistryLock();
  KernelRegistryLock(const KernelRegistryLock&) = delete;
  KernelRegistryLock& operator=(const KernelRegistryLock&) = delete;
};

/// Adds `kernels`. Re-registering an already present name with the same
/// function is a no-op (libraries may be registered twice); a different
/// function for the same name replaces the old one (an optimized library
/// registered after the portable one wins). Fails with OutOfResources when
/// the table is full, leaving it unchanged.
Error register_kernels(Span<const Kernel> kernels);

/// The kernel registered under `name`, or Error::OperatorMissing.
Result<KernelFunction> find_kernel(const char* name);

/// The dtypes a kernel library proves for one kernel: bit i set means
/// ScalarType with wire value i. Method load rejects a call none of whose
/// tensor arguments has a listed dtype, naming the operator, the dtype and
/// the instruction, instead of failing later inside execute().
using DtypeMask = uint64_t;
constexpr DtypeMask kAnyDtype = ~DtypeMask{0};

struct KernelDtypes {
  const char* name;  // must be a string literal (not copied)
  DtypeMask dtypes;
};

/// Records dtype masks (a later entry for the same name replaces the
/// earlier one). Names need not be registered kernels yet. Fails with
/// OutOfResources when the table is full, leaving it unchanged.
Error register_kernel_dtypes(Span<const KernelDtypes> table);

/// The mask recorded for `name`, or kAnyDtype when none was (or checks are off).
DtypeMask kernel_dtypes(const char* name);

/// On by default. Tools that probe which dtypes a kernel really handles
/// (tests/ops/discover_dtypes.py) turn the load-time check off.
void set_kernel_dtype_checks(bool enabled);

/// Number of registered kernels and access by index (for listings).
size_t num_registered_kernels();
const Kernel& registered_kernel(size_t index);

}  // namespace torchedge
