// torchedge/runtime/kernel/kernel_context.h
//
// What a kernel may use besides its arguments.
#pragma once

#include "runtime/core/memory_allocator.h"

namespace torchedge {

class KernelContext final {
 public:
  /// `temp_allocator` may be null (then kernels needing scratch fail with
  /// MemoryAllocationFailed). It is reset by the Method after each kernel,
  /// so scratch never outlives the call.
  explicit KernelContext(MemoryAllocator* temp_allocator = nullptr)
      : temp_allocator_(temp_allocator) {}

  /// Scratch memory for this call only; nullptr when none is available.
  void* allocate_temp(size_t nbytes, size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_allocator_ == nullptr ? nullptr : temp_allocator_->allocate(nbytes, alignment);
  }

 private:
  MemoryAllocator* temp_allocator_;
};

}  // namespace torchedge
