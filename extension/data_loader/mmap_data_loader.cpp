#include "extension/data_loader/mmap_data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

Result<MmapDataLoader> MmapDataLoader::open(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  TE_CHECK_OR_RETURN(fd >= 0, Error::NotFound, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    record_error_message("'%s' is not a regular file", path);
    return Error::AccessFailed;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* base = nullptr;
  if (size > 0) {
    base = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      ::close(fd);
      record_error_message("mmap of '%s' failed: %s", path, strerror(errno));
      return Error::AccessFailed;
    }
  }
  ::close(fd);  // the mapping stays valid
  return MmapDataLoader(base, size);
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& other) noexcept
    : base_(other.base_), size_(other.size_) {
  other.base_ = nullptr;
  other.size_ = 0;
}

MmapDataLoader::~MmapDataLoader() {
  if (base_ != nullptr) munmap(base_, size_);
}

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size) {
  TE_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::InvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte file", offset, size, size_);
  const char* p = static_cast<const char*>(base_) + offset;
  if (offset % 16 == 0) return FreeableBuffer(p, size, nullptr);
  const size_t capacity = ((size == 0 ? 1 : size) + 63) & ~size_t{63};
  void* copy = aligned_alloc(64, capacity);
  TE_CHECK_OR_RETURN(copy != nullptr, Error::MemoryAllocationFailed,
                     "cannot allocate %zu bytes", size);
  memcpy(copy, p, size);
  return FreeableBuffer(copy, size, [](void*, const void* data, size_t) {
    free(const_cast<void*>(data));
  });
}

}  // namespace torchedge
