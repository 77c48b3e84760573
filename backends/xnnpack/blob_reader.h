// torchedge/backends/xnnpack/blob_reader.h
//
// Bounds-checked parsing of a "TEX1" blob (see blob_format.h). Every count,
// offset and dimension is checked before use, so a truncated or corrupted
// blob yields Error::DelegateInvalidCompatibility with a message, never a
// read outside the blob.
//
// parse_blob() reads the header and the value table into memory from the
// given allocator; node records are not stored: NodeReader walks them from
// the blob (valid only during the backend's init()), one at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/blob_format.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace xnnpack {

struct ValueInfo {
  ValueKind kind;
  DataType dtype;  // Float32 for every value of a version-1 blob
  // QInt8 only.
  float scale;
  int32_t zero_point;
  // QCInt8 / QCInt32 only: dims[channel_dim] scales, copied out of the blob
  // into the allocator (aligned, and alive as long as the delegate).
  uint32_t channel_dim;
  const float* channel_scales;
  uint32_t rank;
  uint32_t dims[kMaxDims];  // XNNPACK layout
  uint64_t numel;
  // Input/Output only: how the tensor is bound, and the sizes it must have.
  Boundary boundary;
  uint32_t tensor_rank;
  uint32_t tensor_dims[kMaxDims];
  // Constant only: numel elements of dtype inside the blob (maybe unaligned).
  const uint8_t* data;
  // Filled while building the XNNPACK subgraph.
  uint32_t xnn_id;
  bool defined;         // produced by an earlier node (or an input/constant)
  bool read_at_run;     // a constant XNNPACK reads at execute, not only at init
};

struct NodeInfo {
  OpCode op;
  uint32_t debug_handle;  // version 3; the node's index in older blobs
  uint32_t num_ids;
  uint32_t ids[kMaxNodeIds];
  uint32_t num_params;
  uint32_t params[kMaxNodeParams];

  float float_param(uint32_t i) const;
};

struct ParsedBlob {
  uint32_t version = 0;
  uint32_t num_values = 0;
  uint32_t num_inputs = 0;
  uint32_t num_outputs = 0;
  uint32_t num_nodes = 0;
  ValueInfo* values = nullptr;        // num_values entries, from the allocator
  Span<const uint8_t> node_section;   // the node records, inside the blob
};

/// Parses the header and value table, checking every quantization
/// parameter (scales normal and > 0, zero points in [-128, 127], channel dim
/// inside the rank, channelwise values constant). The returned `values` live in
/// `allocator`; `node_section` and constants' `data` point into `blob`.
Result<ParsedBlob> parse_blob(Span<const uint8_t> blob, MemoryAllocator* allocator);

/// Walks node records; next() fails on a truncated or oversized record.
class NodeReader {
 public:
  explicit NodeReader(const ParsedBlob& parsed)
      : section_(parsed.node_section), remaining_(parsed.num_nodes), version_(parsed.version) {}
  bool done() const { return remaining_ == 0; }
  /// Reads the next record into `out`; `index` numbers nodes for messages.
  Error next(NodeInfo* out);
  /// True when every record was consumed and at most the writer's alignment
  /// padding (< 16 bytes) trails the section.
  bool exhausted() const { return remaining_ == 0 && section_.size() - pos_ < 16; }

 private:
  Span<const uint8_t> section_;
  size_t pos_ = 0;
  uint32_t remaining_;
  uint32_t index_ = 0;
  uint32_t version_;
};

}  // namespace xnnpack
}  // namespace torchedge
