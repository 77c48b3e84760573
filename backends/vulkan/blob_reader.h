// torchedge/backends/vulkan/blob_reader.h
//
// Parses and fully validates a "TVK1" blob (blob_format.h) before any
// Vulkan object exists: header, every tensor record (kind, rank, sizes,
// constant ranges inside the data section, alias targets), every op record
// (shader, ids, parameter count) and, per shader, that the largest element
// index its parameters can reach lies inside each bound tensor, and that the
// tensors an op binds share one dtype (float32 or float16). A blob that
// passes cannot make a shader read or write outside its tensors.
//
// Errors are DelegateInvalidCompatibility with a message naming the record
// and what was expected versus found; nothing here crashes on bad input.
#pragma once

#include <cstdint>

#include "backends/vulkan/blob_format.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace vulkan {

struct TensorInfo {
  TensorKind kind;
  uint32_t rank;
  uint32_t dims[kMaxDims];
  uint64_t numel;
  uint64_t const_offset;  // Constant: offset into ParsedBlob::data
  uint32_t alias_of;      // Alias: the storage owner (resolved: never an alias)
  bool float16;           // dtype: float16 (else float32)
};

/// Bytes per element of a tensor's dtype in the blob.
inline uint32_t element_bytes(const TensorInfo& t) { return t.float16 ? 2 : 4; }

struct OpInfo {
  Shader shader;
  uint32_t debug_handle;
  uint32_t num_ids;
  uint32_t ids[kMaxOpIds];  // kNoTensor in unused or optional slots
  uint32_t params[kMaxParams];
};

/// The validated contents. Arrays come from the allocator passed to
/// parse_blob; `data` points into the blob (valid while the blob is).
struct ParsedBlob {
  uint32_t num_tensors = 0;
  uint32_t num_inputs = 0;
  uint32_t num_outputs = 0;
  uint32_t num_ops = 0;
  uint32_t flags = 0;  // BlobFlag bits
  const TensorInfo* tensors = nullptr;
  const OpInfo* ops = nullptr;
  const uint8_t* data = nullptr;
  uint64_t data_size = 0;
};

/// Parses `blob`. MemoryAllocationFailed when `allocator` runs out;
/// DelegateInvalidCompatibility for any malformed content.
Result<ParsedBlob> parse_blob(Span<const uint8_t> blob, MemoryAllocator* allocator);

/// The shader's file name ("conv2d"): event names and messages.
const char* shader_name(Shader shader);

}  // namespace vulkan
}  // namespace torchedge
