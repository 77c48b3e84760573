// torchedge/runtime/executor/backend_delegate.h
//
// BackendDelegate: the runtime side of one lowered subgraph in a method.
// At Method load, init() finds the backend registered under the delegate's
// id, hands it the processed blob (from the program's inline delegate data
// or a segment) and the compile specs, and keeps the handle the backend
// returns; each DelegateCall instruction calls execute() with the call's
// arguments; destroy() runs when the Method goes away.
//
// Ownership: the blob is only valid during init() (a segment is released
// right after), so backends copy what they keep. Compile specs and the
// delegate itself live in the method allocator.
#pragma once

#include "runtime/backend/backend_interface.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/executor/program.h"

namespace executorch_flatbuffer {
struct BackendDelegate;
}

namespace torchedge {

class BackendDelegate final {
 public:
  /// Fails with NotSupported when no backend with the delegate's id is
  /// registered (naming it), or with the backend's own error from init().
  static Error init(const executorch_flatbuffer::BackendDelegate& serialized,
                    const Program& program, MemoryAllocator* allocator, BackendDelegate* out);

  Error execute(Span<EValue*> args) const { return backend_->execute(handle_, args); }

  /// Idempotent.
  void destroy();

  const char* id() const { return id_; }

 private:
  const BackendInterface* backend_ = nullptr;
  DelegateHandle* handle_ = nullptr;
  const char* id_ = "";
};

}  // namespace torchedge
