#include "extension/data_loader/buffer_data_loader.h"

#include <cstdint>

#include "runtime/core/error_message.h"

namespace torchedge {

Result<FreeableBuffer> BufferDataLoader::load(size_t offset, size_t size) {
  TE_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::InvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte buffer", offset, size, size_);
  const uint8_t* p = static_cast<const uint8_t*>(data_) + offset;
  TE_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(data_) % 16 == 0, Error::InvalidArgument,
                     "program buffer must be 16-byte aligned");
  return FreeableBuffer(p, size, nullptr);
}

}  // namespace torchedge
