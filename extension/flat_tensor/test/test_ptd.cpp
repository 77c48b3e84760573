#include "extension/flat_tensor/test/test_ptd.h"

#include <cstring>

#include "schema/flat_tensor_generated.h"

namespace torchedge {
namespace testing {

namespace ft = flat_tensor_flatbuffer;
using flatbuffers::Offset;

namespace {
constexpr size_t kSegmentAlignment = 128;
constexpr size_t kPaddedHeader = 48;  // 40 header bytes padded to 16

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

void put_le(std::vector<uint8_t>& out, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
}  // namespace

PtdEntry float_entry(const std::string& key, std::vector<int32_t> sizes,
                     const std::vector<float>& values) {
  PtdEntry e;
  e.key = key;
  e.sizes = std::move(sizes);
  for (size_t d = 0; d < e.sizes.size(); ++d) e.dim_order.push_back(static_cast<uint8_t>(d));
  e.data.resize(values.size() * sizeof(float));
  if (!values.empty()) memcpy(e.data.data(), values.data(), e.data.size());
  return e;
}

std::vector<uint8_t> build_ptd(const std::vector<PtdEntry>& entries, uint32_t version) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<Offset<ft::DataSegment>> segments;
  std::vector<Offset<ft::NamedData>> named;
  size_t end = 0;
  std::vector<size_t> offsets;
  for (size_t i = 0; i < entries.size(); ++i) {
    const PtdEntry& e = entries[i];
    const size_t offset = align_up(end, kSegmentAlignment);
    offsets.push_back(offset);
    segments.push_back(ft::CreateDataSegment(b, offset, e.data.size()));
    end = offset + e.data.size();
    Offset<ft::TensorLayout> layout = 0;
    if (e.has_layout) {
      layout = ft::CreateTensorLayoutDirect(
          b, static_cast<executorch_flatbuffer::ScalarType>(e.dtype), &e.sizes, &e.dim_order);
    }
    named.push_back(ft::CreateNamedDataDirect(b, e.key.c_str(), static_cast<uint32_t>(i), layout));
  }
  auto root = ft::CreateFlatTensorDirect(b, version, &segments, &named);
  ft::FinishFlatTensorBuffer(b, root);

  const uint8_t* fbuf = b.GetBufferPointer();
  const size_t fsize = b.GetSize();
  std::vector<uint8_t> out(fsize + kPaddedHeader, 0);
  memcpy(out.data(), fbuf, 8);
  memcpy(out.data() + 8 + kPaddedHeader, fbuf + 8, fsize - 8);
  uint32_t root_offset;
  memcpy(&root_offset, fbuf, 4);
  put_le(out, 0, root_offset + kPaddedHeader, 4);
  memcpy(out.data() + 8, "FH01", 4);
  put_le(out, 12, 40, 4);
  put_le(out, 16, kPaddedHeader, 8);
  put_le(out, kPtdFlatbufferSizeAt, fsize, 8);
  const size_t base = align_up(out.size(), kSegmentAlignment);
  put_le(out, kPtdSegmentBaseAt, base, 8);
  put_le(out, kPtdSegmentDataSizeAt, end, 8);
  out.resize(base + end, 0);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].data.empty()) {
      memcpy(out.data() + base + offsets[i], entries[i].data.data(), entries[i].data.size());
    }
  }
  return out;
}

}  // namespace testing
}  // namespace torchedge
