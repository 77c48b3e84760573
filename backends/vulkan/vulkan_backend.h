// torchedge/backends/vulkan/vulkan_backend.h
//
// "VulkanBackend": the GPU delegate running partitions as Vulkan compute
// shaders (backends/vulkan/shaders, SPIR-V embedded at build time). Its
// ahead-of-time half is python/torchedge/backends/vulkan/ (VulkanPartitioner
// + preprocess, which writes the "TVK1" blob of blob_format.h).
//
//   init     parses and validates the blob (blob_reader.h), then builds the
//            delegate (vulkan_delegate.h): pool, descriptor sets, pipelines,
//            the recorded command buffer. Per-delegate bookkeeping comes
//            from the method allocator; Vulkan objects from the driver.
//   execute  copies inputs in, replays the command buffer, copies outputs
//            out; allocates nothing.
//   destroy  releases the Vulkan objects.
//
// float16 (blob_format.h, vulkan_delegate.h): float16 programs and
// force_fp16 programs run the shaders' float16 variants on devices with
// shaderFloat16 and storageBuffer16BitAccess.
//
// Without a Vulkan 1.1 device is_available() is false and init fails with
// NotSupported naming the reason (no loader/driver/device). Tests on a
// machine without a GPU use Mesa's lavapipe: VK_ICD_FILENAMES (or
// VK_DRIVER_FILES) = /usr/share/vulkan/icd.d/lvp_icd.x86_64.json.
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers the backend under "VulkanBackend" (idempotent).
Error register_vulkan_backend();

/// The selected device's name, or nullptr when there is none (the reason
/// is then in last_error_message()).
const char* vulkan_device_name();

/// Delegates initialized and not yet destroyed (for tests).
int vulkan_live_delegates();

/// The selected device's float16 features, by their Vulkan names, as
/// booleans: `present` what the device has (and the context enabled),
/// else what remains after the mask. false for both when there is no
/// device.
struct VulkanFloat16Features {
  bool shader_float16;
  bool storage_buffer_16bit_access;
};
VulkanFloat16Features vulkan_float16_features(bool present);

/// Hides float16 features from delegates initialized from now on (process-
/// wide): float16 programs then fail init naming the feature, and
/// force_fp16 programs run in float32. For tests, and for forcing float32.
void vulkan_mask_float16_features(bool shader_float16, bool storage_buffer_16bit_access);

}  // namespace torchedge
