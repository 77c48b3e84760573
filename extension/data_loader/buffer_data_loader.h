// torchedge/extension/data_loader/buffer_data_loader.h
//
// Serves a program that is already in memory (embedded in the binary, in
// ROM, or handed over from Python). Borrows the bytes: they must outlive the
// loader and every Program loaded through it, and should be 16-byte aligned
// (load() fails with InvalidArgument otherwise, because flatbuffers and
// tensor data require it).
#pragma once

#include "runtime/executor/data_loader.h"

namespace torchedge {

class BufferDataLoader final : public DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size) : data_(data), size_(size) {}

  Result<FreeableBuffer> load(size_t offset, size_t size) override;
  Result<size_t> size() const override { return size_; }

 private:
  const void* data_;
  size_t size_;
};

}  // namespace torchedge
