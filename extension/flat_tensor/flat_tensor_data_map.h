// torchedge/extension/flat_tensor/flat_tensor_data_map.h
//
// FlatTensorDataMap: a verified .ptd file (FlatTensor layout: "FT01"
// flatbuffer, "FH01" header, aligned data segments) served as a
// NamedDataMap.
//
//   MmapDataLoader loader = MmapDataLoader::open("model.ptd").get();
//   FlatTensorDataMap data = FlatTensorDataMap::load(&loader, "model.ptd").get();
//   program.load_method("forward", &memory, nullptr, &data);
//
// load() reads the flatbuffer and all segment data once (with an mmap
// loader: views into one mapping, nothing copied) and checks, with
// overflow-safe arithmetic, everything get() will later follow: the header
// offsets and sizes against the file, the flatbuffer (FlatBuffers
// verifier), the schema version, every segment inside the segment data,
// every entry's segment index, and every tensor layout (known dtype, rank
// <= kTensorDimensionLimit, non-negative sizes, dim order a permutation,
// byte size inside its segment). A truncated, corrupted or foreign file is
// an Error::InvalidExternalData naming what is wrong, never a crash.
//
// Ownership: the DataLoader must outlive the map; the map owns the buffers
// it loaded and every pointer it hands out points into them. Movable,
// immutable after load(), shareable across threads and across programs.
#pragma once

#include <cstddef>

#include "runtime/executor/data_loader.h"
#include "runtime/executor/named_data_map.h"

namespace flat_tensor_flatbuffer {
struct FlatTensor;
}

namespace torchedge {

class FlatTensorDataMap final : public NamedDataMap {
 public:
  /// Newest FlatTensor.version this reader understands.
  static constexpr uint32_t kMaxVersion = 0;

  /// `description` (copied, truncated to 63 characters) names the file in
  /// error messages; typically its path.
  static Result<FlatTensorDataMap> load(DataLoader* loader, const char* description = "data file");

  FlatTensorDataMap(FlatTensorDataMap&& other) noexcept;
  FlatTensorDataMap(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(const FlatTensorDataMap&) = delete;
  FlatTensorDataMap& operator=(FlatTensorDataMap&&) = delete;
  ~FlatTensorDataMap() override = default;

  Result<NamedTensor> get(const char* key, size_t key_size) const override;
  size_t num_keys() const override;
  Result<const char*> key(size_t index) const override;
  const char* description() const override { return description_; }

  /// The segment data as loaded (one buffer for all entries), for tools and
  /// tests that check where tensors point.
  Span<const uint8_t> segment_data() const;

 private:
  FlatTensorDataMap(FreeableBuffer&& flatbuffer, FreeableBuffer&& segments,
                    const flat_tensor_flatbuffer::FlatTensor* root, const char* description);

  FreeableBuffer flatbuffer_;
  FreeableBuffer segments_;
  const flat_tensor_flatbuffer::FlatTensor* root_;
  char description_[64];
};

}  // namespace torchedge
