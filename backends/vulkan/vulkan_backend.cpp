#include "backends/vulkan/vulkan_backend.h"

#include <atomic>

#include "backends/vulkan/blob_reader.h"
#include "backends/vulkan/vulkan_context.h"
#include "backends/vulkan/vulkan_delegate.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"

namespace torchedge {

namespace {

std::atomic<int> g_live{0};

class VulkanBackend final : public BackendInterface {
 public:
  bool is_available() const override { return vulkan::VulkanContext::get().ok(); }

  Result<DelegateHandle*> init(Span<const uint8_t> blob, Span<const CompileSpec>,
                               MemoryAllocator* allocator) const override {
    // Validate first: a malformed blob is reported as such even where no
    // device exists.
    TE_ASSIGN_OR_RETURN(vulkan::ParsedBlob parsed, vulkan::parse_blob(blob, allocator));
    TE_ASSIGN_OR_RETURN(vulkan::Delegate * d, vulkan::build_delegate(parsed, allocator));
    ++g_live;
    return static_cast<DelegateHandle*>(d);
  }

  Error execute(DelegateHandle* handle, Span<EValue*> args) const override {
    vulkan::Delegate* d = static_cast<vulkan::Delegate*>(handle);
    TE_CHECK_OR_RETURN(d != nullptr && d->context != nullptr, Error::DelegateInvalidHandle,
                       "vulkan delegate: executed after destroy");
    return vulkan::run_delegate(d, args);
  }

  void destroy(DelegateHandle* handle) const override {
    vulkan::Delegate* d = static_cast<vulkan::Delegate*>(handle);
    if (d == nullptr || d->context == nullptr) return;
    vulkan::release_delegate(d);
    --g_live;
  }
};

}  // namespace

Error register_vulkan_backend() {
  static const VulkanBackend kBackend;
  return register_backend("VulkanBackend", &kBackend);
}

const char* vulkan_device_name() {
  Result<vulkan::VulkanContext*> ctx = vulkan::VulkanContext::get();
  return ctx.ok() ? ctx.get()->device_name() : nullptr;
}

int vulkan_live_delegates() { return g_live.load(); }

VulkanFloat16Features vulkan_float16_features(bool present) {
  Result<vulkan::VulkanContext*> ctx = vulkan::VulkanContext::get();
  if (!ctx.ok()) return {false, false};
  const uint32_t bits =
      present ? ctx.get()->float16_features() : ctx.get()->usable_float16_features();
  return {(bits & vulkan::kShaderFloat16) != 0, (bits & vulkan::kStorageBuffer16BitAccess) != 0};
}

void vulkan_mask_float16_features(bool shader_float16, bool storage_buffer_16bit_access) {
  vulkan::VulkanContext::set_masked_features(
      (shader_float16 ? uint32_t{vulkan::kShaderFloat16} : 0u) |
      (storage_buffer_16bit_access ? uint32_t{vulkan::kStorageBuffer16BitAccess} : 0u));
}

}  // namespace torchedge
