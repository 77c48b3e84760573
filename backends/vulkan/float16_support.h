// torchedge/backends/vulkan/float16_support.h
//
// Where a delegate's tensors are float16 and the host-side conversions that
// follows from it (blob_format.h, kFlagFloat16Compute):
//
//   float16 tensors              float16 on the device and at the boundary;
//                                need the device's shaderFloat16 and
//                                storageBuffer16BitAccess, else init fails
//                                naming the missing one
//   float32 tensors, flag set    float16 on the device when it can (float32
//                                at the boundary: converted here, on the
//                                host, while copying), else float32
//   float32 tensors, no flag     float32
//
// Conversions round to nearest even (runtime/core/half.h), as eager
// PyTorch's .half() does.
#pragma once

#include <cstdint>

#include "backends/vulkan/blob_reader.h"
#include "backends/vulkan/vulkan_context.h"
#include "runtime/core/result.h"

namespace torchedge {
namespace vulkan {

/// Whether the delegate keeps its float32 tensors in float16 (the blob's
/// kFlagFloat16Compute on a device with usable float16 features).
/// DelegateInvalidCompatibility naming the missing (or masked) feature when
/// the blob has float16 tensors and the device cannot run them.
Result<bool> resolve_float16(const ParsedBlob& blob, const VulkanContext& ctx);

/// Copies `count` elements from host memory `src` to device-visible `dst`:
/// float32 rounded to float16 with `narrow`, else `bytes` bytes verbatim.
void copy_to_device(void* dst, const void* src, uint64_t count, uint64_t bytes, bool narrow);

/// The reverse: float16 widened to float32 with `widen`, else verbatim.
void copy_from_device(void* dst, const void* src, uint64_t count, uint64_t bytes, bool widen);

}  // namespace vulkan
}  // namespace torchedge
