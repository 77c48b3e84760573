// torchedge/backends/vulkan/shader_library.h
//
// The SPIR-V of every shader in backends/vulkan/shaders/, in a float32 and
// a float16 variant, compiled by glslc at build time and embedded as arrays (CMake generates the definition,
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

/// The SPIR-V of `shader` (blob_format.h's Shader order): its float32
/// variant, or with `float16` the variant over float16 buffers (compiled
/// from the same GLSL with -DTE_FLOAT16; declares the Float16 and
/// StorageBuffer16BitAccess capabilities).
SpirvCode shader_spirv(Shader shader, bool float16);

}  // namespace vulkan
}  // namespace torchedge
