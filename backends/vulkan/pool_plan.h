// torchedge/backends/vulkan/pool_plan.h
//
// Where each tensor of a delegate lives in its one device buffer (the
// per-method pool, sized here, at init):
//
//   | inputs | outputs | constants | internal tensors (lifetime-shared) |
//
// Inputs, outputs and constants get regions of their own; an internal
// tensor shares space with internal tensors whose lifetimes (first write to
// last read, counting reads through aliases) do not overlap (first fit).
// Aliases take their target's offset. Every offset is a multiple of
// `alignment` (the device's minStorageBufferOffsetAlignment, at least 16).
#pragma once

#include <cstdint>

#include "backends/vulkan/blob_reader.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"

namespace torchedge {
namespace vulkan {

struct PoolPlan {
  const uint64_t* offsets = nullptr;  // per tensor, bytes into the pool
  uint64_t pool_bytes = 0;
  uint64_t internal_bytes = 0;     // the lifetime-shared part
  uint64_t constant_bytes = 0;     // sum of constant regions (upload size)
};

/// Plans `blob`'s tensors; arrays come from `allocator`.
/// MemoryAllocationFailed when it runs out.
Result<PoolPlan> plan_pool(const ParsedBlob& blob, uint64_t alignment, MemoryAllocator* allocator);

/// Bytes of tensor `t` (float32), rounded up to `alignment`.
uint64_t region_bytes(const TensorInfo& t, uint64_t alignment);

}  // namespace vulkan
}  // namespace torchedge
