#include "backends/vulkan/dispatch_size.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace vulkan {

namespace {

uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// A 1-D job of `n` invocations: groups along x, folded into y past the
// device's x limit (the shaders' linear_index() undoes the fold).
void linear(uint64_t n, uint32_t local, const VkPhysicalDeviceLimits& limits, uint32_t g[3]) {
  const uint32_t total = ceil_div(n, local);
  g[0] = total < limits.maxComputeWorkGroupCount[0] ? total : limits.maxComputeWorkGroupCount[0];
  g[1] = ceil_div(total, g[0]);
  g[2] = 1;
}

}  // namespace

Error dispatch_size(const OpInfo& op, uint32_t index, const VkPhysicalDeviceLimits& limits,
                    uint32_t g[3]) {
  const uint32_t* p = op.params;
  switch (op.shader) {
    case Shader::Unary: linear(p[1], 256, limits, g); break;
    case Shader::Binary: linear(p[1], 256, limits, g); break;
    case Shader::Copy: linear(p[0], 256, limits, g); break;
    case Shader::Softmax:
    case Shader::Reduce: linear(uint64_t{p[0]} * p[2], 64, limits, g); break;
    case Shader::Norm: linear(p[0], 64, limits, g); break;
    case Shader::Resize: linear(uint64_t{p[0]} * p[3] * p[4], 64, limits, g); break;
    case Shader::Matmul:
      // 8 x 8 invocations of 4 x 4 outputs each (shaders/matmul.comp).
      g[0] = ceil_div(p[1], 32);
      g[1] = ceil_div(p[0], 32);
      g[2] = p[3] * p[4];
      break;
    case Shader::Conv2d:
    {
      // Blocks of 4 outputs of a row, for 4 channels when the group's
      // output channels come in fours (shaders/conv2d.comp), one 1-D job
      // per batch element.
      const uint64_t channel_blocks = (p[4] / p[15]) % 4 == 0 ? p[4] / 4 : p[4];
      linear(channel_blocks * p[5] * ceil_div(p[6], 4), 64, limits, g);
      g[2] = p[0];
    }
      break;
    case Shader::Pool2d:
      g[0] = ceil_div(uint64_t{p[3]} * p[4], 64);
      g[1] = p[0];
      g[2] = 1;
      break;
  }
  for (int d = 0; d < 3; ++d) {
    TE_CHECK_OR_RETURN(g[d] >= 1 && g[d] <= limits.maxComputeWorkGroupCount[d],
                       Error::DelegateInvalidCompatibility,
                       "vulkan delegate: op %u (%s) needs %u workgroups along %c; this device "
                       "allows %u",
                       index, shader_name(op.shader), g[d], "xyz"[d],
                       limits.maxComputeWorkGroupCount[d]);
  }
  return Error::Ok;
}

}  // namespace vulkan
}  // namespace torchedge
