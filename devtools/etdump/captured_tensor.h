// torchedge/devtools/etdump/captured_tensor.h
//
// How ETDumpTracer lays out one captured tensor in the debug buffer, for
// the tracer (writing) and the serializer (reading it back):
//
//   offset (16-aligned): CapturedTensorHeader, sizes[dim], strides[dim] (int32)
//   data_offset (16-aligned): nbytes of the tensor's memory, as laid out
//
// The serialized DebugEvent's Tensor.offset is data_offset.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace etdump_internal {

constexpr size_t kCaptureAlignment = 16;

struct CapturedTensorHeader {
  uint64_t nbytes;
  uint32_t data_offset;  // from the start of the debug buffer
  int8_t dtype;          // ScalarType wire value
  uint8_t dim;
  uint16_t reserved;
};

inline size_t align_up(size_t n) { return (n + kCaptureAlignment - 1) & ~(kCaptureAlignment - 1); }

/// Bytes of the header and its size/stride arrays, before the data.
inline size_t header_bytes(size_t dim) {
  return align_up(sizeof(CapturedTensorHeader) + 2 * dim * sizeof(int32_t));
}

}  // namespace etdump_internal
}  // namespace torchedge
