// libFuzzer harness: bytes -> FlatTensorDataMap::load (the .ptd reader) ->
// every entry looked up and every byte of it read. Any crash, sanitizer
// report, hang or leak is a finding (fuzz/README.md).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"

using namespace torchedge;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An aligned copy, as a loader serves files (BufferDataLoader repacks otherwise).
  std::unique_ptr<uint8_t, void (*)(void*)> copy(
      static_cast<uint8_t*>(aligned_alloc(64, (size + 64) & ~size_t{63})), &free);
  if (copy == nullptr) return 0;
  if (size > 0) memcpy(copy.get(), data, size);
  BufferDataLoader loader(copy.get(), size);
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader, "fuzz.ptd");
  if (!map.ok()) return 0;
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < map->num_keys(); ++i) {
    Result<const char*> key = map->key(i);
    if (!key.ok()) continue;
    Result<NamedTensor> entry = map->get(key.get(), strlen(key.get()));
    if (!entry.ok()) continue;
    for (uint8_t byte : entry->data) sink = sink ^ byte;
    for (int32_t s : entry->sizes) sink = sink ^ static_cast<uint8_t>(s);
  }
  (void)sink;
  return 0;
}
