// torchedge/extension/data_loader/mmap_data_loader.h
//
// Maps the file read-only and serves ranges as views into the mapping: no
// copy, and pages of weights are only read when touched. Ranges whose start
// is not 16-byte aligned within the file are copied instead (flatbuffers
// and tensors need aligned data); .pte segments are aligned, so in practice
// constants and delegate blobs are never copied.
#pragma once

#include "runtime/executor/data_loader.h"

namespace torchedge {

class MmapDataLoader final : public DataLoader {
 public:
  static Result<MmapDataLoader> open(const char* path);

  MmapDataLoader(MmapDataLoader&& other) noexcept;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(MmapDataLoader&&) = delete;
  ~MmapDataLoader() override;

  Result<FreeableBuffer> load(size_t offset, size_t size) override;
  Result<size_t> size() const override { return size_; }

 private:
  MmapDataLoader(void* base, size_t size) : base_(base), size_(size) {}
  void* base_;
  size_t size_;
};

}  // namespace torchedge
