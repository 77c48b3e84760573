#include "extension/data_loader/buffer_data_loader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

Result<FreeableBuffer> BufferDataLoader::load(size_t offset, size_t size) {
  TE_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::InvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte buffer", offset, size, size_);
  const uint8_t* p = static_cast<const uint8_t*>(data_) + offset;
  if (reinterpret_cast<uintptr_t>(p) % kBufferLoadAlignment == 0) {
    return FreeableBuffer(p, size, nullptr);
  }
#if defined(TORCHEDGE_NO_HEAP)
  // Bare metal (targets/cortex_m): no heap to copy into; the program array
  // must be aligned (scripts/embed_program.py aligns it to 64).
  TE_CHECK_OR_RETURN(false, Error::InvalidArgument,
                     "range [%zu, +%zu) of the program is not %zu-byte aligned and there is no "
                     "heap to copy it into: align the program buffer",
                     offset, size, kBufferLoadAlignment);
#endif
  // A misaligned range: one aligned copy, freed with the buffer.
  const size_t capacity =
      ((size == 0 ? 1 : size) + kBufferLoadAlignment - 1) & ~(kBufferLoadAlignment - 1);
  void* copy = aligned_alloc(kBufferLoadAlignment, capacity);
  TE_CHECK_OR_RETURN(copy != nullptr, Error::MemoryAllocationFailed,
                     "cannot allocate %zu bytes to align a %zu-byte range of the program", capacity,
                     size);
  memcpy(copy, p, size);
  return FreeableBuffer(copy, size, [](void*, const void* data, size_t) {
    free(const_cast<void*>(data));
  });
}

}  // namespace torchedge
