// torchedge/extension/flat_tensor/test/test_ptd.h
//
// Builds .ptd images in memory (FT01 flatbuffer + FH01 header + 128-aligned
// segments, one per entry) with the flatc-generated builders, so the reader
// tests need no Python.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchedge {
namespace testing {

struct PtdEntry {
  std::string key;
  int8_t dtype = 6;  // float32
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<uint8_t> data;
  bool has_layout = true;
};

/// A float32 entry holding `values`, contiguous.
PtdEntry float_entry(const std::string& key, std::vector<int32_t> sizes,
                     const std::vector<float>& values);

/// The bytes of a .ptd file holding `entries`; `version` is FlatTensor.version.
std::vector<uint8_t> build_ptd(const std::vector<PtdEntry>& entries, uint32_t version = 0);

/// Byte offsets of header fields in a .ptd built by build_ptd.
constexpr size_t kPtdFlatbufferSizeAt = 24;
constexpr size_t kPtdSegmentBaseAt = 32;
constexpr size_t kPtdSegmentDataSizeAt = 40;

}  // namespace testing
}  // namespace torchedge
