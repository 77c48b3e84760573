// torchedge/runtime/backend/backend_interface.h
//
// The contract between the runtime and a backend delegate (XNNPACK, Vulkan,
// ...). A lowered program carries, per delegated subgraph, the backend id,
// the blob the backend's ahead-of-time `preprocess` produced and compile
// specs. At Method load the runtime finds the backend by id and calls
// init() once; each execute() of the method calls the backend's execute()
// with the delegate call's arguments; destroy() runs at Method teardown.
//
// Backends allocate their per-method state from the allocator passed to
// init() (the method allocator), so delegation needs no heap either.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {

struct CompileSpec {
  const char* key;
  Span<const uint8_t> value;
};

/// Opaque per-delegate state returned by init().
using DelegateHandle = void;

class BackendInterface {
 public:
  virtual ~BackendInterface() = default;

  /// False when the backend cannot run on this machine (missing hardware).
  virtual bool is_available() const = 0;

  /// Prepares a delegate from `blob` (valid only during this call unless the
  /// backend copies it). Allocates state from `allocator`.
  virtual Result<DelegateHandle*> init(Span<const uint8_t> blob, Span<const CompileSpec> specs,
                                       MemoryAllocator* allocator) const = 0;

  /// Runs the delegate on `args` (inputs then outputs, as emitted).
  virtual Error execute(DelegateHandle* handle, Span<EValue*> args) const = 0;

  /// Releases what init() acquired outside the allocator (threads, caches).
  virtual void destroy(DelegateHandle* handle) const {}
};

constexpr size_t kMaxRegisteredBackends = 16;

/// Registers `backend` under `id` (a string literal; not copied). The
/// backend object must outlive every program using it. OutOfResources when
/// the table is full; re-registering an id replaces the entry.
Error register_backend(const char* id, const BackendInterface* backend);

/// The backend registered as `id`, or nullptr.
const BackendInterface* find_backend(const char* id);

}  // namespace torchedge
