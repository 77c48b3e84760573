// torchedge/runtime/core/memory_allocator.h
//
// Caller-owned memory, handed out without touching the heap.
//
//   MemoryAllocator (bump):
//
//     base                      cursor                         base+size
//     |=== handed out ==========|--------- still free ---------|
//                               ^ allocate(n, align) moves right; reset()
//                                 moves it back to base.
//
// Ownership: the allocator never owns `base`; the caller keeps it alive for
// as long as anything allocated from it is used. allocate() returns nullptr
// (never aborts) when the request does not fit; callers turn that into
// Error::MemoryAllocationFailed with a message saying how much was needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"

namespace torchedge {

class MemoryAllocator {
 public:
  static constexpr size_t kDefaultAlignment = 16;

  MemoryAllocator() = default;
  MemoryAllocator(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}
  virtual ~MemoryAllocator() = default;

  /// `alignment` must be a power of two. Returns nullptr when out of space.
  virtual void* allocate(size_t nbytes, size_t alignment = kDefaultAlignment);

  /// Typed array of `count` default-uninitialized T; nullptr on overflow.
  template <typename T>
  T* allocate_array(size_t count) {
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(allocate(count * sizeof(T), alignof(T) > 16 ? alignof(T) : 16));
  }

  /// Like allocate_array, aligned to alignof(T) only: for the method's own
  /// tables (values, tensor metadata, argument lists), which nothing reads
  /// with SIMD and whose padding counts on a microcontroller.
  template <typename T>
  T* allocate_packed_array(size_t count) {
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(allocate(count * sizeof(T), alignof(T)));
  }

  /// Forgets every allocation (the memory is reused).
  virtual void reset() { used_ = 0; }

  size_t used() const { return used_; }
  size_t capacity() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
};

/// The planned arenas of a method, indexed by memory id - 1 (file ids are
/// 1-based). Each span is caller-owned and must be at least as large as the
/// program's planned size for that id.
class PlannedMemory {
 public:
  PlannedMemory() = default;
  /// `zero_filled`: the caller promises every arena byte is zero (fresh
  /// calloc/mmap pages), so load need not clear state that starts at zero
  /// (a KV cache), leaving its pages uncommitted until written.
  explicit PlannedMemory(Span<Span<uint8_t>> arenas, bool zero_filled = false)
      : arenas_(arenas), zero_filled_(zero_filled) {}
  size_t num_arenas() const { return arenas_.size(); }
  Span<uint8_t> arena(size_t index) const { return arenas_[index]; }
  bool zero_filled() const { return zero_filled_; }

 private:
  Span<Span<uint8_t>> arenas_;
  bool zero_filled_ = false;
};

/// Everything a Method allocates from, all caller-owned:
///  - method_allocator: values, tensor metadata, kernel tables (at load);
///  - planned_memory: activations, inputs and outputs (bound at load);
///  - temp_allocator: kernel scratch, reset after every kernel (optional).
struct MemoryManager {
  MemoryAllocator* method_allocator = nullptr;
  PlannedMemory* planned_memory = nullptr;
  MemoryAllocator* temp_allocator = nullptr;
};

}  // namespace torchedge
