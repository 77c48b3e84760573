// torchedge/backends/vulkan/vulkan_delegate.h
//
// One initialized Vulkan delegate (a partition of one method) and its
// lifecycle. Everything a run needs is created by build():
//
//   pool        one device buffer holding every tensor (pool_plan.h),
//               preferably device-local memory
//   host path   if the pool's memory is also host-visible and coherent
//               (lavapipe, integrated GPUs) it stays mapped and inputs and
//               outputs are copied straight into/out of it; otherwise a
//               host-visible staging buffer holds them and the command
//               buffer copies between staging and pool
//   descriptors one descriptor set per op (4 storage-buffer slots, each
//               exactly one tensor's region), from a pool of the exact size
//   pipelines   from the shared VulkanContext, one per shader
//   commands    one primary command buffer recorded once: [staging ->
//               pool copies], per op (pipeline, set, push constants,
//               dispatch, timestamp, memory barrier), [pool -> staging
//               copies], barrier to host reads; plus a fence
//   timestamps  a query pool of num_ops + 1 timestamps when the queue has
//               them (VulkanContext::timestamp_bits() > 0)
//
// float16: tensors the blob marks float16 live in float16 on the device
// and cross the delegate boundary as float16 (a model exported in
// float16); under the blob's kFlagFloat16Compute the float32 tensors live
// in float16 too, and run() converts float32 inputs and outputs on the
// host while copying them (float32 at the boundary). Both run the shaders'
// float16 variants, which need the device's shaderFloat16 and
// storageBuffer16BitAccess (VulkanContext::usable_float16_features()):
// without them a blob with float16 tensors fails build() naming the
// missing feature, and kFlagFloat16Compute falls back to float32
// (float16_support.h).
//
// run() copies inputs in, submits the recorded command buffer, waits on the
// fence and copies outputs out: no allocation and no Vulkan object creation
// (what the driver does inside vkQueueSubmit is up to the driver). Under an
// EventTracer it reports the stages and one event per op, timed by the GPU
// timestamps when available.
//
// Ownership: the Delegate struct and its arrays come from the method
// allocator passed to build(); Vulkan objects are released by release().
#pragma once

#include <vulkan/vulkan.h>

#include "backends/vulkan/blob_reader.h"
#include "backends/vulkan/vulkan_context.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace vulkan {

/// Stage event names (string literals: the tracer borrows them).
constexpr const char* kInputCopyEvent = "VULKAN_INPUT_COPY";
constexpr const char* kSubmitEvent = "VULKAN_SUBMIT";
constexpr const char* kOutputCopyEvent = "VULKAN_OUTPUT_COPY";

/// A DelegateCall argument: its expected sizes and where its bytes go.
struct IoBinding {
  uint32_t rank;
  uint32_t dims[kMaxDims];
  uint64_t numel;
  uint64_t nbytes;   // on the device
  bool float16;      // the argument's dtype: float16 (else float32)
  bool convert;      // float32 argument, float16 on the device
  uint8_t* host;     // mapped pool or staging memory
};

struct Delegate {
  VulkanContext* context;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_ops;
  IoBinding* io;  // inputs, then outputs
  VkBuffer pool;
  VkDeviceMemory pool_memory;
  VkBuffer staging;
  VkDeviceMemory staging_memory;
  VkDescriptorPool descriptor_pool;
  VkCommandBuffer commands;
  VkFence fence;
  VkQueryPool queries;
  uint64_t* timestamps;          // num_ops + 1 when queries exist
  const uint32_t* debug_handles;  // per op
  const Shader* shaders;          // per op (event names)
  uint64_t pool_bytes;
  bool float32_as_float16;  // kFlagFloat16Compute in effect
};

/// Builds a delegate for `blob` (already validated). Errors: NotSupported
/// when no device exists, DelegateInvalidCompatibility when the device
/// cannot run it (limits, rejected shader, float16 tensors without the
/// float16 features), DelegateMemoryAllocationFailed
/// when device memory runs out, MemoryAllocationFailed when `allocator` does.
/// On error every Vulkan object made so far is released.
Result<Delegate*> build_delegate(const ParsedBlob& blob, MemoryAllocator* allocator);

/// One execution: `args` are inputs then outputs, contiguous tensors of the
/// dtypes and shapes the blob names (InvalidArgument otherwise).
Error run_delegate(Delegate* d, Span<EValue*> args);

/// Releases the Vulkan objects (idempotent).
void release_delegate(Delegate* d);

}  // namespace vulkan
}  // namespace torchedge
