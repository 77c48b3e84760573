#include "runtime/executor/extended_header.h"

#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

namespace {
constexpr size_t kHeaderOffset = 8;

uint64_t read_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace

Result<ExtendedHeader> ExtendedHeader::parse(const void* data, size_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  if (size < kHeaderOffset + 8 || memcmp(bytes + kHeaderOffset, "eh", 2) != 0) {
    record_error_message("no extended header");
    return Error::NotFound;
  }
  TE_CHECK_OR_RETURN(memcmp(bytes + kHeaderOffset, "eh00", 4) == 0, Error::InvalidProgram,
                     "unsupported extended header version '%.4s' (expected eh00)",
                     reinterpret_cast<const char*>(bytes + kHeaderOffset));
  const uint64_t length = read_le(bytes + kHeaderOffset + 4, 4);
  TE_CHECK_OR_RETURN(length >= kMinLength && kHeaderOffset + length <= size,
                     Error::InvalidProgram, "extended header length %llu invalid",
                     static_cast<unsigned long long>(length));
  ExtendedHeader header;
  header.program_size = read_le(bytes + kHeaderOffset + 8, 8);
  header.segment_base_offset = read_le(bytes + kHeaderOffset + 16, 8);
  if (length >= 32) header.segment_data_size = read_le(bytes + kHeaderOffset + 24, 8);
  return header;
}

}  // namespace torchedge
