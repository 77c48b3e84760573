// libFuzzer harness: the Vulkan delegate's blob reader (backends/vulkan/
// blob_reader.h) and what the runtime computes from a parsed blob before it
// touches a device: the buffer pool's plan and every op's dispatch size
// (against limits as small as Vulkan 1.1 allows). No device is needed, so
// the whole path that a hostile blob reaches ahead of vkCreate* runs here.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "backends/vulkan/blob_reader.h"
#include "backends/vulkan/dispatch_size.h"
#include "backends/vulkan/pool_plan.h"
#include "runtime/core/memory_allocator.h"

using namespace torchedge;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Blobs live in aligned segments; give the reader the same.
  std::unique_ptr<uint8_t, void (*)(void*)> blob(
      static_cast<uint8_t*>(aligned_alloc(64, (size + 64) & ~size_t{63})), &free);
  if (blob == nullptr) return 0;
  if (size != 0) memcpy(blob.get(), data, size);
  constexpr size_t kPool = size_t{1} << 20;
  std::unique_ptr<uint8_t, void (*)(void*)> pool(static_cast<uint8_t*>(aligned_alloc(64, kPool)),
                                                 &free);
  if (pool == nullptr) return 0;
  MemoryAllocator allocator(pool.get(), kPool);
  Result<vulkan::ParsedBlob> parsed = vulkan::parse_blob({blob.get(), size}, &allocator);
  if (!parsed.ok()) return 0;
  (void)vulkan::plan_pool(parsed.get(), 256, (parsed->flags & vulkan::kFlagFloat16Compute) != 0,
                          &allocator);
  VkPhysicalDeviceLimits limits{};
  limits.maxComputeWorkGroupCount[0] = limits.maxComputeWorkGroupCount[1] =
      limits.maxComputeWorkGroupCount[2] = 65535;
  for (uint32_t i = 0; i < parsed->num_ops; ++i) {
    uint32_t groups[3];
    (void)vulkan::dispatch_size(parsed->ops[i], i, limits, groups);
  }
  return 0;
}
