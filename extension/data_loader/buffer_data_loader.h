// torchedge/extension/data_loader/buffer_data_loader.h
//
// Serves a program that is already in memory (embedded in the binary, in
// ROM, or handed over from Python). Borrows the bytes: they must outlive the
// loader and every Program loaded through it.
//
// Every load path must run a program equally fast: the optimized kernels
// read prepacked weights with aligned vector loads only at
// kBufferLoadAlignment, and repack (a copy per call) otherwise. So load()
// serves a range in place when its first byte is kBufferLoadAlignment-aligned
// (a buffer aligned to 64 whose segments the file aligned, the normal case:
// `alignas(64)` arrays, aligned_alloc, mmap), and otherwise copies it into
// aligned heap memory once, at load time, the way FileDataLoader reads a
// file. Nothing is copied during execution either way.
#pragma once

#include <cstddef>

#include "runtime/executor/data_loader.h"

namespace torchedge {

class BufferDataLoader final : public DataLoader {
 public:
  /// The alignment of served ranges (that of the widest vector load).
  static constexpr size_t kBufferLoadAlignment = 64;

  BufferDataLoader(const void* data, size_t size) : data_(data), size_(size) {}

  Result<FreeableBuffer> load(size_t offset, size_t size) override;
  Result<size_t> size() const override { return size_; }

 private:
  const void* data_;
  size_t size_;
};

}  // namespace torchedge
