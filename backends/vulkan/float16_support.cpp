#include "backends/vulkan/float16_support.h"

#include <cstring>

#include "runtime/core/error_message.h"
#include "runtime/core/half.h"

namespace torchedge {
namespace vulkan {

Result<bool> resolve_float16(const ParsedBlob& blob, const VulkanContext& ctx) {
  const uint32_t missing = kFloat16Features & ~ctx.usable_float16_features();
  bool has_float16 = false;
  for (uint32_t i = 0; i < blob.num_tensors; ++i) has_float16 |= blob.tensors[i].float16;
  if (has_float16 && missing != 0) {
    const bool both = missing == kFloat16Features;
    TE_CHECK_OR_RETURN(false, Error::DelegateInvalidCompatibility,
                       "vulkan delegate: the partition has float16 tensors and device \"%s\" "
                       "lacks %s%s%s%s (delegate float32 models, or lower with "
                       "VulkanPartitioner(force_fp16=True) to compute float32 models in float16 "
                       "where the device can)",
                       ctx.device_name(), feature_name(both ? kShaderFloat16 : missing),
                       both ? " and " : "", both ? feature_name(kStorageBuffer16BitAccess) : "",
                       (ctx.float16_features() & missing) != 0 ? " (masked)" : "");
  }
  return (blob.flags & kFlagFloat16Compute) != 0 && missing == 0;
}

// Element by element through memcpy: blob constants and tensor data carry
// no alignment promise beyond 4 bytes.
void copy_to_device(void* dst, const void* src, uint64_t count, uint64_t bytes, bool narrow) {
  if (!narrow) {
    memcpy(dst, src, bytes);
    return;
  }
  const uint8_t* in = static_cast<const uint8_t*>(src);
  uint8_t* out = static_cast<uint8_t*>(dst);
  for (uint64_t e = 0; e < count; ++e) {
    float v;
    memcpy(&v, in + 4 * e, 4);
    const uint16_t h = Half(v).bits;
    memcpy(out + 2 * e, &h, 2);
  }
}

void copy_from_device(void* dst, const void* src, uint64_t count, uint64_t bytes, bool widen) {
  if (!widen) {
    memcpy(dst, src, bytes);
    return;
  }
  const uint8_t* in = static_cast<const uint8_t*>(src);
  uint8_t* out = static_cast<uint8_t*>(dst);
  for (uint64_t e = 0; e < count; ++e) {
    Half h;
    memcpy(&h.bits, in + 2 * e, 2);
    const float v = h;
    memcpy(out + 4 * e, &v, 4);
  }
}

}  // namespace vulkan
}  // namespace torchedge
