// libFuzzer harness: bytes -> Program::load (full verification) -> every
// method's load_method into memory sized from its metadata -> inputs of the
// declared shapes -> execute. Any crash, sanitizer report, hang or leak is a
// finding (fuzz/README.md).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "fuzz/fuzz_support.h"

using namespace torchedge;

namespace {

struct Arena {
  explicit Arena(size_t bytes)
      : storage(static_cast<uint8_t*>(aligned_alloc(64, (bytes + 64) & ~size_t{63})), &free), size(bytes) {
    if (storage != nullptr) memset(storage.get(), 0, size);
  }
  std::unique_ptr<uint8_t, void (*)(void*)> storage;
  size_t size;
};

void load_and_run(const Program& program, const char* name) {
  Result<MethodMeta> meta = program.method_meta(name);
  if (!meta.ok() || !fuzz::memory_within_policy(meta.get())) return;
  Arena method_pool(meta->method_allocator_bytes() + meta->num_delegates() * (size_t{1} << 20));
  Arena temp_pool(size_t{1} << 20);
  if (method_pool.storage == nullptr || temp_pool.storage == nullptr) return;
  std::vector<Arena> arenas;
  std::vector<Span<uint8_t>> spans;
  arenas.reserve(meta->num_planned_buffers());
  for (size_t i = 0; i < meta->num_planned_buffers(); ++i) {
    arenas.emplace_back(meta->planned_buffer_size(i).get() + 16);  // XNNPACK over-reads 16
    if (arenas.back().storage == nullptr) return;
    spans.emplace_back(arenas.back().storage.get(), arenas.back().size);
  }
  MemoryAllocator method_allocator(method_pool.storage.get(), method_pool.size);
  MemoryAllocator temp_allocator(temp_pool.storage.get(), temp_pool.size);
  PlannedMemory planned({spans.data(), spans.size()}, /*zero_filled=*/true);
  MemoryManager memory{&method_allocator, &planned, &temp_allocator};
  Result<Method> method = program.load_method(name, &memory);
  if (!method.ok()) return;
  fuzz::run_method(method.get(), meta.get());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::register_everything();
  // An aligned copy: the harness fuzzes the bytes, not the loader's alignment path.
  Arena bytes(size);
  if (bytes.storage == nullptr) return 0;
  if (size != 0) memcpy(bytes.storage.get(), data, size);
  BufferDataLoader loader(bytes.storage.get(), size);
  Result<Program> program = Program::load(&loader, Verification::Full);
  if (!program.ok()) return 0;
  for (size_t i = 0; i < program->num_methods(); ++i) {
    Result<const char*> name = program->method_name(i);
    if (name.ok()) load_and_run(program.get(), name.get());
  }
  return 0;
}
