// libFuzzer harness: the same bytes through Module, the way applications
// load: once from a caller's buffer at the fuzzer's (arbitrary) alignment
// through a BufferDataLoader, once from an mmapped file (an in-memory file,
// memfd), then every method run on inputs of its declared shapes.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/module/module.h"
#include "fuzz/fuzz_support.h"

using namespace torchedge;

namespace {

void run_every_method(Module& module) {
  Result<std::vector<std::string>> names = module.method_names();
  if (!names.ok()) return;
  for (const std::string& name : names.get()) {
    Result<MethodMeta> meta = module.method_meta(name);
    if (!meta.ok() || !fuzz::memory_within_policy(meta.get())) continue;
    Result<Method*> method = module.method(name);
    if (!method.ok()) continue;
    fuzz::run_method(*method.get(), meta.get());
  }
}

// A file holding `data` that mmap can map, without touching the disk.
std::string memory_file(const uint8_t* data, size_t size, int* fd_out) {
  const int fd = memfd_create("pte", 0);
  if (fd < 0) return "";
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  *fd_out = fd;
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::register_everything();
  {
    Module borrowed(std::make_unique<BufferDataLoader>(data, size));
    run_every_method(borrowed);
  }
  int fd = -1;
  const std::string path = memory_file(data, size, &fd);
  if (!path.empty()) {
    ModuleOptions options;
    options.load_mode = LoadMode::Mmap;
    Module mapped(path, options);
    run_every_method(mapped);
    close(fd);
  }
  return 0;
}
