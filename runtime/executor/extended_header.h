// torchedge/runtime/executor/extended_header.h
//
// The "eh00" extended header that sits at byte 8 of a .pte file, right
// after the flatbuffer root offset (bytes 0-3) and file identifier (4-7):
//
//   offset  size  field
//   8       4     magic "eh00"
//   12      4     header length in bytes (>= 24; 32 when segment_data_size present)
//   16      8     program_size: bytes of flatbuffer data, headers included
//   24      8     segment_base_offset: file offset of segment data (0 = none)
//   32      8     segment_data_size (optional, when length >= 32)
//
// All little-endian. See docs/file-format.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"

namespace torchedge {

struct ExtendedHeader {
  /// Bytes of the file head needed to parse both headers.
  static constexpr size_t kNumHeadBytes = 64;
  static constexpr size_t kMinLength = 24;

  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;  // 0 when the header does not carry it

  /// Parses the header from the first `size` bytes of a file. Fails with
  /// NotFound when there is no "eh" magic (a plain flatbuffer) and
  /// InvalidProgram when the magic is present but the header is malformed.
  static Result<ExtendedHeader> parse(const void* data, size_t size);
};

}  // namespace torchedge
