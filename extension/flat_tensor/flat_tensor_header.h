// torchedge/extension/flat_tensor/flat_tensor_header.h
//
// The "FH01" header of a .ptd file. Like the .pte's "eh00" header it is
// spliced into a finished flatbuffer right after the root offset (bytes
// 0-3) and the file identifier "FT01" (bytes 4-7):
//
//   offset  size  field
//   8       4     magic "FH01"
//   12      4     header length in bytes (40; longer headers carry future fields)
//   16      8     flatbuffer_offset: end of the padded header (48 as written)
//   24      8     flatbuffer_size: bytes of flatbuffer tables after the header
//   32      8     segment_base_offset: file offset of the segment data
//   40      8     segment_data_size: bytes of segment data
//
// All little-endian; the flatbuffer part of the file is the first
// flatbuffer_offset + flatbuffer_size bytes. See
// docs/program-data-separation.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"

namespace torchedge {

struct FlatTensorHeader {
  /// Bytes of the file head parse() needs (identifier and header).
  static constexpr size_t kNumHeadBytes = 48;
  static constexpr size_t kHeaderOffset = 8;
  static constexpr size_t kMinLength = 40;

  uint64_t flatbuffer_offset = 0;
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;

  /// Parses the identifier and header from the first `size` bytes of a
  /// file. InvalidExternalData, with a message saying what is wrong, when
  /// the bytes are too few, the identifier is not "FT01", the magic is not
  /// "FH01" or the length is below 40.
  static Result<FlatTensorHeader> parse(const void* data, size_t size);
};

}  // namespace torchedge
