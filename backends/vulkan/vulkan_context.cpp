#include "backends/vulkan/vulkan_context.h"

#include <cstdlib>
#include <cstring>

#include "backends/vulkan/blob_reader.h"
#include "backends/vulkan/shader_library.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace vulkan {

namespace {

#define TE_VK_CHECK(call, error)                                                           \
  do {                                                                                     \
    const VkResult vk_result_ = (call);                                                    \
    TE_CHECK_OR_RETURN(vk_result_ == VK_SUCCESS, error, "vulkan: %s failed: %s", #call,    \
                       vk_result_name(vk_result_));                                        \
  } while (0)

// Higher is better: a real GPU before a software rasterizer.
int device_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
  }
}

// The first queue family with compute, or -1.
int32_t compute_family(VkPhysicalDevice device, uint32_t* timestamp_bits) {
  VkQueueFamilyProperties families[16];
  uint32_t count = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      *timestamp_bits = families[i].timestampValidBits;
      return static_cast<int32_t>(i);
    }
  }
  return -1;
}

}  // namespace

const char* vk_result_name(VkResult result) {
  switch (result) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult (other)";
  }
}

Result<VulkanContext*> VulkanContext::get() {
  // Created once; a failure is kept (with its message) so every later
  // delegate reports the same reason without probing the driver again.
  static VulkanContext* context = nullptr;
  static Error status = Error::Ok;
  static char reason[256] = {0};
  static std::once_flag once;
  std::call_once(once, [] {
    static VulkanContext instance;
    status = instance.create();
    if (status == Error::Ok) {
      context = &instance;
    } else {
      strncpy(reason, last_error_message(), sizeof(reason) - 1);
    }
  });
  if (context == nullptr) {
    record_error_message("%s", reason);
    return status;
  }
  return context;
}

Error VulkanContext::create() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "torchedge";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  const VkResult created = vkCreateInstance(&instance_info, nullptr, &instance_);
  TE_CHECK_OR_RETURN(created == VK_SUCCESS, Error::NotSupported,
                     "vulkan: no Vulkan driver (vkCreateInstance: %s); on a machine without a "
                     "GPU install mesa-vulkan-drivers and point VK_ICD_FILENAMES at lvp_icd",
                     vk_result_name(created));
  VkPhysicalDevice devices[16];
  uint32_t count = 16;
  const VkResult listed = vkEnumeratePhysicalDevices(instance_, &count, devices);
  TE_CHECK_OR_RETURN((listed == VK_SUCCESS || listed == VK_INCOMPLETE) && count > 0,
                     Error::NotSupported, "vulkan: no Vulkan device (vkEnumeratePhysicalDevices: "
                     "%s, %u devices)", vk_result_name(listed), count);
  const char* wanted = getenv("TORCHEDGE_VULKAN_DEVICE");
  int best = -1;
  int32_t family = -1;
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(devices[i], &props);
    uint32_t bits = 0;
    const int32_t f = compute_family(devices[i], &bits);
    if (props.apiVersion < VK_API_VERSION_1_1 || f < 0) continue;
    if (wanted != nullptr && atoi(wanted) != static_cast<int>(i)) continue;
    if (best < 0 || device_rank(props.deviceType) > device_rank(properties_.deviceType)) {
      best = static_cast<int>(i);
      family = f;
      properties_ = props;
      timestamp_bits_ = bits;
    }
  }
  TE_CHECK_OR_RETURN(best >= 0, Error::NotSupported,
                     "vulkan: none of %u devices has Vulkan 1.1 and a compute queue%s", count,
                     wanted != nullptr ? " (or TORCHEDGE_VULKAN_DEVICE names none)" : "");
  physical_ = devices[best];
  queue_family_ = static_cast<uint32_t>(family);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  if (properties_.limits.timestampComputeAndGraphics == VK_FALSE) timestamp_bits_ = 0;

  // robustBufferAccess bounds every shader access to its descriptor's
  // range: a second fence behind the blob reader's parameter checks.
  VkPhysicalDeviceFeatures supported;
  vkGetPhysicalDeviceFeatures(physical_, &supported);
  VkPhysicalDeviceFeatures enabled{};
  enabled.robustBufferAccess = supported.robustBufferAccess;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.pEnabledFeatures = &enabled;
  TE_VK_CHECK(vkCreateDevice(physical_, &device_info, nullptr, &device_), Error::NotSupported);
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = queue_family_;
  TE_VK_CHECK(vkCreateCommandPool(device_, &pool_info, nullptr, &command_pool_), Error::NotSupported);

  VkDescriptorSetLayoutBinding bindings[kMaxOpIds];
  for (uint32_t i = 0; i < kMaxOpIds; ++i) {
    bindings[i] = VkDescriptorSetLayoutBinding{i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                               VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = kMaxOpIds;
  set_info.pBindings = bindings;
  TE_VK_CHECK(vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &set_layout_),
              Error::NotSupported);
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4 * kMaxParams};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  TE_VK_CHECK(vkCreatePipelineLayout(device_, &layout_info, nullptr, &pipeline_layout_),
              Error::NotSupported);
  return Error::Ok;
}

int32_t VulkanContext::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                   VkMemoryPropertyFlags preferred) const {
  int32_t fallback = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if (!((type_bits >> i) & 1u) || (flags & required) != required) continue;
    if ((flags & preferred) == preferred) return static_cast<int32_t>(i);
    if (fallback < 0) fallback = static_cast<int32_t>(i);
  }
  return fallback;
}

VkMemoryPropertyFlags VulkanContext::memory_flags(uint32_t type) const {
  return type < memory_.memoryTypeCount ? memory_.memoryTypes[type].propertyFlags : 0;
}

Result<VkPipeline> VulkanContext::pipeline(Shader shader) {
  const uint32_t index = static_cast<uint32_t>(shader);
  TE_CHECK_OR_RETURN(index < kNumShaders, Error::DelegateInvalidCompatibility,
                     "vulkan: shader %u does not exist", index);
  std::lock_guard<std::mutex> guard(mutex_);
  if (pipelines_[index] != VK_NULL_HANDLE) return pipelines_[index];
  const SpirvCode code = shader_spirv(shader);
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = code.size_bytes;
  module_info.pCode = code.words;
  VkShaderModule module = VK_NULL_HANDLE;
  TE_VK_CHECK(vkCreateShaderModule(device_, &module_info, nullptr, &module),
              Error::DelegateInvalidCompatibility);
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = pipeline_layout_;
  const VkResult made =
      vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipelines_[index]);
  vkDestroyShaderModule(device_, module, nullptr);
  TE_CHECK_OR_RETURN(made == VK_SUCCESS, Error::DelegateInvalidCompatibility,
                     "vulkan: the driver rejected shader %s: %s", shader_name(shader),
                     vk_result_name(made));
  return pipelines_[index];
}

}  // namespace vulkan
}  // namespace torchedge
