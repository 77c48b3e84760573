#include "backends/vulkan/vulkan_context.h"

#include <atomic>
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

// Called only while the context is created (once, under std::call_once):
// the 130 KiB list lives in static storage rather than on the stack.
bool has_extension(VkPhysicalDevice device, const char* name) {
  static VkExtensionProperties props[512];
  uint32_t count = 512;
  const VkResult r = vkEnumerateDeviceExtensionProperties(device, nullptr, &count, props);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (strcmp(props[i].extensionName, name) == 0) return true;
  }
  return false;
}

// TORCHEDGE_VULKAN_MASK_FEATURES: a comma-separated list of feature names.
uint32_t mask_from_env() {
  const char* env = getenv("TORCHEDGE_VULKAN_MASK_FEATURES");
  if (env == nullptr) return 0;
  uint32_t mask = 0;
  for (uint32_t bit : {uint32_t{kShaderFloat16}, uint32_t{kStorageBuffer16BitAccess}}) {
    if (strstr(env, feature_name(bit)) != nullptr) mask |= bit;
  }
  return mask;
}

std::atomic<uint32_t>& mask_word() {
  static std::atomic<uint32_t> mask{mask_from_env()};
  return mask;
}

}  // namespace

const char* feature_name(uint32_t feature) {
  switch (feature) {
    case kShaderFloat16: return "shaderFloat16";
    case kStorageBuffer16BitAccess: return "storageBuffer16BitAccess";
    default: return "unknown feature";
  }
}

void VulkanContext::set_masked_features(uint32_t mask) { mask_word().store(mask); }

uint32_t VulkanContext::masked_features() { return mask_word().load(); }

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
  // 1.2, the highest version used (shaderFloat16 as core, see
  // choose_float16_features); 1.1 devices still work, at their version.
  app.apiVersion = VK_API_VERSION_1_2;
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
  VkPhysicalDevice16BitStorageFeatures storage{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features arithmetic{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  bool needs_extension = false;
  choose_float16_features(&storage, &arithmetic, &needs_extension);
  const char* extension = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.pEnabledFeatures = &enabled;
  device_info.pNext = &storage;  // -> arithmetic when shaderFloat16 is enabled
  device_info.enabledExtensionCount = needs_extension ? 1 : 0;
  device_info.ppEnabledExtensionNames = needs_extension ? &extension : nullptr;
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

void VulkanContext::choose_float16_features(VkPhysicalDevice16BitStorageFeatures* storage,
                                            VkPhysicalDeviceShaderFloat16Int8Features* arithmetic,
                                            bool* needs_extension) {
  // shaderFloat16 is core from Vulkan 1.2; a 1.1 device has it only
  // through VK_KHR_shader_float16_int8 (its struct is undefined otherwise).
  const bool core12 = properties_.apiVersion >= VK_API_VERSION_1_2;
  const bool arithmetic_known =
      core12 || has_extension(physical_, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  VkPhysicalDevice16BitStorageFeatures storage_q{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features arithmetic_q{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  storage_q.pNext = arithmetic_known ? &arithmetic_q : nullptr;
  VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  query.pNext = &storage_q;
  vkGetPhysicalDeviceFeatures2(physical_, &query);
  float16_features_ = 0;
  if (storage_q.storageBuffer16BitAccess == VK_TRUE) {
    storage->storageBuffer16BitAccess = VK_TRUE;
    float16_features_ |= kStorageBuffer16BitAccess;
  }
  if (arithmetic_known && arithmetic_q.shaderFloat16 == VK_TRUE) {
    arithmetic->shaderFloat16 = VK_TRUE;
    storage->pNext = arithmetic;
    float16_features_ |= kShaderFloat16;
    *needs_extension = !core12;
  }
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

Result<VkPipeline> VulkanContext::pipeline(Shader shader, bool float16) {
  const uint32_t index = static_cast<uint32_t>(shader);
  TE_CHECK_OR_RETURN(index < kNumShaders, Error::DelegateInvalidCompatibility,
                     "vulkan: shader %u does not exist", index);
  // A device without the features would reject (or worse, misrun) them.
  TE_CHECK_OR_RETURN(!float16 || (float16_features_ & kFloat16Features) == kFloat16Features,
                     Error::DelegateInvalidCompatibility,
                     "vulkan: the float16 variant of shader %s needs shaderFloat16 and "
                     "storageBuffer16BitAccess", shader_name(shader));
  std::lock_guard<std::mutex> guard(mutex_);
  VkPipeline& slot = pipelines_[float16 ? 1 : 0][index];
  if (slot != VK_NULL_HANDLE) return slot;
  const SpirvCode code = shader_spirv(shader, float16);
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
      vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &slot);
  vkDestroyShaderModule(device_, module, nullptr);
  TE_CHECK_OR_RETURN(made == VK_SUCCESS, Error::DelegateInvalidCompatibility,
                     "vulkan: the driver rejected shader %s (%s): %s", shader_name(shader),
                     float16 ? "float16" : "float32", vk_result_name(made));
  return slot;
}

}  // namespace vulkan
}  // namespace torchedge
