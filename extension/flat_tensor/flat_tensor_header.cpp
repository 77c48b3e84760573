#include "extension/flat_tensor/flat_tensor_header.h"

#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {

namespace {
uint64_t read_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace

Result<FlatTensorHeader> FlatTensorHeader::parse(const void* data, size_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  TE_CHECK_OR_RETURN(size >= kHeaderOffset + kMinLength, Error::InvalidExternalData,
                     "file is %zu bytes, too small to be a .ptd data file", size);
  TE_CHECK_OR_RETURN(memcmp(bytes + 4, "FT01", 4) == 0, Error::InvalidExternalData,
                     "not a .ptd data file: file identifier is '%.4s', expected 'FT01'",
                     reinterpret_cast<const char*>(bytes + 4));
  const uint8_t* h = bytes + kHeaderOffset;
  TE_CHECK_OR_RETURN(memcmp(h, "FH01", 4) == 0, Error::InvalidExternalData,
                     "bad .ptd header: magic is '%.4s', expected 'FH01'",
                     reinterpret_cast<const char*>(h));
  const uint64_t length = read_le(h + 4, 4);
  TE_CHECK_OR_RETURN(length >= kMinLength, Error::InvalidExternalData,
                     "bad .ptd header: length %llu, expected at least %zu",
                     static_cast<unsigned long long>(length), kMinLength);
  FlatTensorHeader header;
  header.flatbuffer_offset = read_le(h + 8, 8);
  header.flatbuffer_size = read_le(h + 16, 8);
  header.segment_base_offset = read_le(h + 24, 8);
  header.segment_data_size = read_le(h + 32, 8);
  return header;
}

}  // namespace torchedge
