// torchedge/backends/vulkan/shader_library.h
//
// The SPIR-V of every shader in backends/vulkan/shaders/, compiled by glslc
// at build time and embedded as arrays (CMake generates the definition,
// shader_library_generated.cpp, in the build tree).
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/vulkan/blob_format.h"

namespace torchedge {
namespace vulkan {

struct SpirvCode {
  const uint32_t* words;
  size_t size_bytes;
};

/// The SPIR-V of `shader` (blob_format.h's Shader order).
SpirvCode shader_spirv(Shader shader);

}  // namespace vulkan
}  // namespace torchedge
