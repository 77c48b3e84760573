// torchedge/backends/vulkan/vulkan_context.h
//
// The process-wide Vulkan state every Vulkan delegate shares: instance,
// the chosen device (any Vulkan 1.1+ device with a compute queue; discrete
// before integrated before virtual before CPU, or the index given by
// TORCHEDGE_VULKAN_DEVICE), one compute queue, a command pool, the
// descriptor set layout and pipeline layout all shaders use (four storage
// buffers, 128 bytes of push constants), and one compute pipeline per
// shader and variant (float32 / float16), built the first time a delegate
// needs it.
//
// float16: at device selection the context reads the device's
// VkPhysicalDeviceShaderFloat16Int8Features::shaderFloat16 and
// VkPhysicalDevice16BitStorageFeatures::storageBuffer16BitAccess, enables
// each one present (with VK_KHR_shader_float16_int8 on a Vulkan 1.1
// device) and records them (float16_features()). The float16 shader
// variants need both. A mask (TORCHEDGE_VULKAN_MASK_FEATURES at creation,
// set_masked_features() later) hides features from delegates built
// afterwards, so the no-float16 paths run on any device.
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

/// Feature bits (float16_features(), masks).
enum DeviceFeature : uint32_t {
  kShaderFloat16 = 1u,             // VkPhysicalDeviceShaderFloat16Int8Features
  kStorageBuffer16BitAccess = 2u,  // VkPhysicalDevice16BitStorageFeatures
};
constexpr uint32_t kFloat16Features = kShaderFloat16 | kStorageBuffer16BitAccess;

/// "shaderFloat16" / "storageBuffer16BitAccess" (one bit), for messages.
const char* feature_name(uint32_t feature);

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

  /// DeviceFeature bits the device has and the context enabled.
  uint32_t float16_features() const { return float16_features_; }
  /// float16_features() less the mask: what delegates may use.
  uint32_t usable_float16_features() const { return float16_features_ & ~masked_features(); }

  /// Hides DeviceFeature bits from delegates built from now on (tests; a
  /// user forcing the float32 path). Process-wide, thread-safe.
  static void set_masked_features(uint32_t mask);
  static uint32_t masked_features();

  /// The compute pipeline of `shader` (its float16 variant with
  /// `float16`), built on first request. DelegateInvalidCompatibility when
  /// the driver rejects the shader.
  Result<VkPipeline> pipeline(Shader shader, bool float16);

  std::mutex& lock() { return mutex_; }

 private:
  VulkanContext() = default;
  Error create();
  // Queries the float16 features of physical_ and fills the structs
  // chained into VkDeviceCreateInfo (enabled ones only).
  void choose_float16_features(VkPhysicalDevice16BitStorageFeatures* storage,
                               VkPhysicalDeviceShaderFloat16Int8Features* arithmetic,
                               bool* needs_extension);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipelines_[2][kNumShaders] = {};  // [float16][shader]
  uint32_t float16_features_ = 0;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  uint32_t timestamp_bits_ = 0;
  std::mutex mutex_;
};

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc., for messages.
const char* vk_result_name(VkResult result);

}  // namespace vulkan
}  // namespace torchedge
