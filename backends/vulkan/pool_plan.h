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
// A tensor takes 2 bytes per element on the device when it is float16, or
// when it is float32 and the delegate computes in float16
// (`float32_as_float16`: the blob's kFlagFloat16Compute on a device that
// can); 4 otherwise.
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
Result<PoolPlan> plan_pool(const ParsedBlob& blob, uint64_t alignment, bool float32_as_float16,
                           MemoryAllocator* allocator);

/// Whether tensor `t` is float16 on the device.
inline bool stored_float16(const TensorInfo& t, bool float32_as_float16) {
  return t.float16 || float32_as_float16;
}

/// Device bytes of tensor `t` (unrounded).
inline uint64_t device_bytes(const TensorInfo& t, bool float32_as_float16) {
  return t.numel * (stored_float16(t, float32_as_float16) ? 2 : 4);  // numel <= 2^31
}

/// device_bytes rounded up to `alignment`.
uint64_t region_bytes(const TensorInfo& t, uint64_t alignment, bool float32_as_float16);

}  // namespace vulkan
}  // namespace torchedge
