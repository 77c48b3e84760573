// torchedge/backends/vulkan/dispatch_size.h
//
// How many workgroups each shader's dispatch needs, computed by the runtime
// from the validated parameters (never read from the blob), with the local
// sizes the GLSL files declare.
#pragma once

#include <vulkan/vulkan.h>

#include "backends/vulkan/blob_reader.h"
#include "runtime/core/error.h"

namespace torchedge {
namespace vulkan {

/// Writes the group counts of `op` into `groups`. DelegateInvalidCompatibility
/// (naming the op) when they exceed the device's maxComputeWorkGroupCount.
Error dispatch_size(const OpInfo& op, uint32_t index, const VkPhysicalDeviceLimits& limits,
                    uint32_t groups[3]);

}  // namespace vulkan
}  // namespace torchedge
