#include "extension/data_loader/file_data_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

Result<FileDataLoader> FileDataLoader::open(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  TE_CHECK_OR_RETURN(fd >= 0, Error::NotFound, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    record_error_message("'%s' is not a regular file", path);
    return Error::AccessFailed;
  }
  return FileDataLoader(fd, static_cast<size_t>(st.st_size));
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size) {
  TE_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::InvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte file", offset, size, size_);
  // Round up so aligned_alloc's size is a multiple of the alignment.
  const size_t capacity = ((size == 0 ? 1 : size) + 63) & ~size_t{63};
  void* buffer = aligned_alloc(64, capacity);
  TE_CHECK_OR_RETURN(buffer != nullptr, Error::MemoryAllocationFailed,
                     "cannot allocate %zu bytes to read the program", size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd_, static_cast<char*>(buffer) + done, size - done,
                            static_cast<off_t>(offset + done));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      free(buffer);
      record_error_message("read of %zu bytes at %zu failed: %s", size, offset,
                           n == 0 ? "unexpected end of file" : strerror(errno));
      return Error::AccessFailed;
    }
    done += static_cast<size_t>(n);
  }
  return FreeableBuffer(buffer, size, [](void*, const void* data, size_t) {
    free(const_cast<void*>(data));
  });
}

}  // namespace torchedge
