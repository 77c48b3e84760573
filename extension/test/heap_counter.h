// torchedge/extension/test/heap_counter.h
//
// Counts heap allocations (malloc/calloc/realloc/aligned_alloc and every
// operator new, which goes through malloc) made by this thread while a
// HeapCounter is alive. Used to prove execute() never touches the heap.
// Not available under AddressSanitizer (which owns malloc).
#pragma once

#include <cstddef>

namespace torchedge {
namespace testing {

class HeapCounter {
 public:
  HeapCounter();
  ~HeapCounter();
  size_t allocations() const;
};

}  // namespace testing
}  // namespace torchedge
