// libFuzzer harness: the XNNPACK delegate's blob reader and subgraph builder
// fed blobs directly (init builds the XNNPACK runtime, destroy frees it),
// without a program around them.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "fuzz/fuzz_support.h"
#include "runtime/backend/backend_interface.h"

using namespace torchedge;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::register_everything();
  static const BackendInterface* backend = find_backend("XnnpackBackend");
  if (backend == nullptr || !backend->is_available()) return 0;
  // Blobs live in aligned segments; give the reader the same.
  std::unique_ptr<uint8_t, void (*)(void*)> blob(
      static_cast<uint8_t*>(aligned_alloc(64, (size + 64) & ~size_t{63})), &free);
  if (blob == nullptr) return 0;
  if (size != 0) memcpy(blob.get(), data, size);
  constexpr size_t kPool = size_t{8} << 20;
  std::unique_ptr<uint8_t, void (*)(void*)> pool(static_cast<uint8_t*>(aligned_alloc(64, kPool)),
                                                 &free);
  if (pool == nullptr) return 0;
  MemoryAllocator allocator(pool.get(), kPool);
  Result<DelegateHandle*> handle = backend->init({blob.get(), size}, {}, &allocator);
  if (handle.ok()) backend->destroy(handle.get());
  return 0;
}
