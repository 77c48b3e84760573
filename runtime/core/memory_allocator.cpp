#include "runtime/core/memory_allocator.h"

namespace torchedge {

void* MemoryAllocator::allocate(size_t nbytes, size_t alignment) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
  const uintptr_t aligned = (start + alignment - 1) & ~(static_cast<uintptr_t>(alignment) - 1);
  const size_t padding = aligned - start;
  // Overflow-safe: compare against the remaining space, never add blindly.
  if (base_ == nullptr || padding > size_ - used_ || nbytes > size_ - used_ - padding) {
    return nullptr;
  }
  used_ += padding + nbytes;
  return reinterpret_cast<void*>(aligned);
}

}  // namespace torchedge
