// torchedge/runtime/executor/data_loader.h
//
// How the runtime reads a program: through a DataLoader that hands out byte
// ranges as FreeableBuffers. Implementations (file, mmap, in-memory buffer)
// live in extension/data_loader; a port can supply its own (flash, ROM).
#pragma once

#include <cstddef>

#include "runtime/core/result.h"

namespace torchedge {

/// Bytes plus the way to release them. Move-only; releases on destruction.
class FreeableBuffer final {
 public:
  using FreeFn = void (*)(void* context, const void* data, size_t size);

  FreeableBuffer() = default;
  /// `free_fn` may be null for memory that needs no release (ROM, caller-owned).
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* context = nullptr)
      : data_(data), size_(size), free_fn_(free_fn), context_(context) {}
  FreeableBuffer(FreeableBuffer&& other) noexcept { *this = static_cast<FreeableBuffer&&>(other); }
  FreeableBuffer& operator=(FreeableBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      size_ = other.size_;
      free_fn_ = other.free_fn_;
      context_ = other.context_;
      other.data_ = nullptr;
      other.size_ = 0;
      other.free_fn_ = nullptr;
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  ~FreeableBuffer() { release(); }

  const void* data() const { return data_; }
  size_t size() const { return size_; }

  void release() {
    if (free_fn_ != nullptr && data_ != nullptr) free_fn_(context_, data_, size_);
    data_ = nullptr;
    size_ = 0;
    free_fn_ = nullptr;
  }

 private:
  const void* data_ = nullptr;
  size_t size_ = 0;
  FreeFn free_fn_ = nullptr;
  void* context_ = nullptr;
};

class DataLoader {
 public:
  virtual ~DataLoader() = default;

  /// Returns bytes [offset, offset + size) of the source. The returned data
  /// is aligned to at least 16 bytes. Fails with InvalidArgument when the
  /// range is outside the source and AccessFailed on I/O errors.
  virtual Result<FreeableBuffer> load(size_t offset, size_t size) = 0;

  /// Total size of the source in bytes.
  virtual Result<size_t> size() const = 0;
};

}  // namespace torchedge
