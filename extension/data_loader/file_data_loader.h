// torchedge/extension/data_loader/file_data_loader.h
//
// Reads byte ranges of a file into fresh, 16-byte-aligned heap buffers
// (freed when the returned FreeableBuffer is released). Loading happens at
// Program/Method load time only, never during execute().
#pragma once

#include "runtime/executor/data_loader.h"

namespace torchedge {

class FileDataLoader final : public DataLoader {
 public:
  /// Opens `path`; NotFound when it cannot be opened, AccessFailed on I/O error.
  static Result<FileDataLoader> open(const char* path);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  FileDataLoader& operator=(FileDataLoader&&) = delete;
  ~FileDataLoader() override;

  Result<FreeableBuffer> load(size_t offset, size_t size) override;
  Result<size_t> size() const override { return size_; }

 private:
  FileDataLoader(int fd, size_t size) : fd_(fd), size_(size) {}
  int fd_;
  size_t size_;
};

}  // namespace torchedge
