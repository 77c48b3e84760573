// torchedge/backends/vulkan/vulkan_context.h
//
// The process-wide Vulkan state every Vulkan delegate shares: instance,
// the chosen device (any Vulkan 1.1+ device with a compute queue; discrete
// before integrated before virtual before CPU, or the index given by
// TORCHEDGE_VULKAN_DEVICE), one compute queue, a command pool, the
// descriptor set layout and pipeline layout all shaders use (four storage
// buffers, 128 bytes of push constants), and one compute pipeline per
// shader, built the first time a delegate needs it.
//
// Created on first use and kept for the life of the process (drivers do
// not like being unloaded under static destructors). Thread safety: the
// queue and command pool are externally synchronized objects, so every
// use of them goes through lock() (submit, command-buffer allocation).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <mutex>

#include "backends/vulkan/blob_format.h"
#include "runtime/core/result.h"

namespace torchedge {
namespace vulkan {

class VulkanContext {
 public:
  /// The shared context, created on the first call. NotSupported (with the
  /// reason in the error message) when there is no loader, no driver or no
  /// Vulkan 1.1 device with a compute queue; the failure is remembered.
  static Result<VulkanContext*> get();

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool command_pool() const { return command_pool_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  VkPipelineLayout pipeline_layout() const { return pipeline_layout_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const char* device_name() const { return properties_.deviceName; }
  /// Bits of a timestamp (0: the queue cannot write timestamps).
  uint32_t timestamp_bits() const { return timestamp_bits_; }

  /// A memory type index with all of `required` among `type_bits`, with
  /// `preferred` flags too when one exists; -1 when none.
  int32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                      VkMemoryPropertyFlags preferred) const;
  VkMemoryPropertyFlags memory_flags(uint32_t type) const;

  /// The compute pipeline of `shader`, built on first request.
  /// DelegateInvalidCompatibility when the driver rejects the shader.
  Result<VkPipeline> pipeline(Shader shader);

  std::mutex& lock() { return mutex_; }

 private:
  VulkanContext() = default;
  Error create();

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipelines_[kNumShaders] = {};
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  uint32_t timestamp_bits_ = 0;
  std::mutex mutex_;
};

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc., for messages.
const char* vk_result_name(VkResult result);

}  // namespace vulkan
}  // namespace torchedge
