// FlatTensorDataMap on .ptd images built in memory (test_ptd.h): lookups,
// MergedDataMap, and every malformed file the reader must refuse with an
// Error (never a crash): bad identifier, magic, length, version, offsets,
// truncation at every byte, a corrupted byte at every position.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "extension/flat_tensor/test/test_ptd.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/merged_data_map.h"

namespace torchedge {
namespace {

using testing::build_ptd;
using testing::float_entry;
using testing::PtdEntry;

// An aligned copy of a file image and a loader over it.
struct Image {
  explicit Image(const std::vector<uint8_t>& bytes)
      : storage(bytes.size() / 8 + 1), loader(storage.data(), bytes.size()) {
    if (!bytes.empty()) memcpy(storage.data(), bytes.data(), bytes.size());
  }
  Result<FlatTensorDataMap> load() { return FlatTensorDataMap::load(&loader, "test.ptd"); }
  std::vector<uint64_t> storage;
  BufferDataLoader loader;
};

std::vector<uint8_t> two_tensors() {
  return build_ptd({float_entry("layer.weight", {2, 3}, {1, 2, 3, 4, 5, 6}),
                    float_entry("layer.bias", {2}, {7, 8})});
}

void put_le(std::vector<uint8_t>& bytes, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) bytes[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

Error load_error(const std::vector<uint8_t>& bytes) {
  Image image(bytes);
  Result<FlatTensorDataMap> map = image.load();
  return map.ok() ? Error::Ok : map.error();
}

TEST(FlatTensorDataMap, ServesNamedTensorsWithLayout) {
  Image image(two_tensors());
  Result<FlatTensorDataMap> map = image.load();
  ASSERT_TRUE(map.ok()) << last_error_message();
  EXPECT_EQ(map->num_keys(), 2u);
  EXPECT_STREQ(map->key(1).get(), "layer.bias");
  Result<NamedTensor> w = map->get("layer.weight", 12);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->has_layout);
  EXPECT_EQ(w->dtype, ScalarType::Float);
  ASSERT_EQ(w->sizes.size(), 2u);
  EXPECT_EQ(w->sizes[0], 2);
  EXPECT_EQ(w->sizes[1], 3);
  ASSERT_EQ(w->data.size(), 24u);
  EXPECT_EQ(reinterpret_cast<const float*>(w->data.data())[5], 6.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w->data.data()) % 16, 0u);
  // In place: the data lies inside the one segment buffer the map loaded.
  const Span<const uint8_t> all = map->segment_data();
  EXPECT_GE(w->data.data(), all.data());
  EXPECT_LE(w->data.data() + w->data.size(), all.data() + all.size());
}

TEST(FlatTensorDataMap, MissingKeyIsNotFoundNamingKeyAndFile) {
  Image image(two_tensors());
  Result<FlatTensorDataMap> map = image.load();
  ASSERT_TRUE(map.ok());
  Result<NamedTensor> missing = map->get("layer.weigh", 11);
  EXPECT_EQ(missing.error(), Error::NotFound);
  EXPECT_NE(strstr(last_error_message(), "'layer.weigh'"), nullptr) << last_error_message();
  EXPECT_NE(strstr(last_error_message(), "test.ptd"), nullptr);
}

TEST(FlatTensorDataMap, OpaqueEntryHasNoLayout) {
  PtdEntry blob = float_entry("blob", {}, {1, 2});
  blob.has_layout = false;
  Image image(build_ptd({blob}));
  Result<FlatTensorDataMap> map = image.load();
  ASSERT_TRUE(map.ok()) << last_error_message();
  Result<NamedTensor> got = map->get("blob", 4);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_layout);
  EXPECT_EQ(got->data.size(), 8u);
}

TEST(FlatTensorDataMap, EmptyFileOfNoTensorsLoads) {
  Image image(build_ptd({}));
  Result<FlatTensorDataMap> map = image.load();
  ASSERT_TRUE(map.ok()) << last_error_message();
  EXPECT_EQ(map->num_keys(), 0u);
}

TEST(FlatTensorDataMap, RejectsBadIdentifierMagicLengthAndVersion) {
  std::vector<uint8_t> bytes = two_tensors();
  std::vector<uint8_t> bad = bytes;
  memcpy(bad.data() + 4, "ET12", 4);
  EXPECT_EQ(load_error(bad), Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "expected 'FT01'"), nullptr) << last_error_message();
  bad = bytes;
  memcpy(bad.data() + 8, "FH02", 4);
  EXPECT_EQ(load_error(bad), Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "FH01"), nullptr) << last_error_message();
  bad = bytes;
  put_le(bad, 12, 16, 4);
  EXPECT_EQ(load_error(bad), Error::InvalidExternalData);
  EXPECT_EQ(load_error(build_ptd({float_entry("a", {1}, {1})}, /*version=*/1)),
            Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "version 1"), nullptr) << last_error_message();
}

TEST(FlatTensorDataMap, RejectsHeaderOffsetsOutsideTheFile) {
  const std::vector<uint8_t> bytes = two_tensors();
  std::vector<uint8_t> bad = bytes;
  put_le(bad, testing::kPtdFlatbufferSizeAt, ~uint64_t{0} - 8, 8);  // wraps when added
  EXPECT_EQ(load_error(bad), Error::InvalidExternalData);
  bad = bytes;
  put_le(bad, testing::kPtdSegmentBaseAt, 16, 8);  // inside the flatbuffer
  EXPECT_EQ(load_error(bad), Error::InvalidExternalData);
  bad = bytes;
  put_le(bad, testing::kPtdSegmentDataSizeAt, bytes.size(), 8);
  EXPECT_EQ(load_error(bad), Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "truncated"), nullptr) << last_error_message();
}

TEST(FlatTensorDataMap, RejectsLayoutsThatDoNotFitOrCannotBeRead) {
  PtdEntry big = float_entry("big", {2, 3}, {1, 2, 3, 4, 5, 6});
  big.sizes = {4, 3};  // 48 bytes claimed, 24 stored
  EXPECT_EQ(load_error(build_ptd({big})), Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "'big'"), nullptr) << last_error_message();
  PtdEntry order = float_entry("order", {2, 3}, {1, 2, 3, 4, 5, 6});
  order.dim_order = {1, 1};
  EXPECT_EQ(load_error(build_ptd({order})), Error::InvalidExternalData);
  PtdEntry dtype = float_entry("dtype", {2}, {1, 2});
  dtype.dtype = 99;
  EXPECT_EQ(load_error(build_ptd({dtype})), Error::InvalidExternalData);
  PtdEntry negative = float_entry("negative", {2}, {1, 2});
  negative.sizes = {-2};
  EXPECT_EQ(load_error(build_ptd({negative})), Error::InvalidExternalData);
}

TEST(FlatTensorDataMap, EveryTruncationIsAnError) {
  const std::vector<uint8_t> bytes = two_tensors();
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    EXPECT_NE(load_error(cut), Error::Ok) << "truncated to " << n << " bytes";
  }
}

TEST(FlatTensorDataMap, CorruptionAnywhereNeverCrashes) {
  const std::vector<uint8_t> bytes = two_tensors();
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}, uint8_t{0x7f}}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] = value;
      Image image(bad);
      Result<FlatTensorDataMap> map = image.load();
      if (!map.ok()) continue;
      // Whatever loaded must be safe to read in full.
      for (size_t k = 0; k < map->num_keys(); ++k) {
        const char* key = map->key(k).get();
        Result<NamedTensor> t = map->get(key, strlen(key));
        if (!t.ok()) continue;
        volatile uint8_t sink = 0;
        for (uint8_t byte : t->data) sink = sink ^ byte;
        (void)sink;
      }
    }
  }
}

TEST(MergedDataMap, SearchesMapsInOrderAndNamesThemWhenMissing) {
  Image first(build_ptd({float_entry("shared", {1}, {1}), float_entry("a", {1}, {2})}));
  Image second(build_ptd({float_entry("shared", {1}, {10}), float_entry("b", {1}, {3})}));
  Result<FlatTensorDataMap> a = FlatTensorDataMap::load(&first.loader, "backbone.ptd");
  Result<FlatTensorDataMap> b = FlatTensorDataMap::load(&second.loader, "head.ptd");
  ASSERT_TRUE(a.ok() && b.ok());
  const NamedDataMap* maps[] = {&a.get(), &b.get()};
  MergedDataMap merged({maps, 2});
  EXPECT_EQ(merged.num_keys(), 4u);
  EXPECT_EQ(reinterpret_cast<const float*>(merged.get("shared", 6)->data.data())[0], 1.0f);
  EXPECT_EQ(reinterpret_cast<const float*>(merged.get("b", 1)->data.data())[0], 3.0f);
  EXPECT_EQ(merged.get("c", 1).error(), Error::NotFound);
  EXPECT_NE(strstr(last_error_message(), "backbone.ptd, head.ptd"), nullptr)
      << last_error_message();
}

}  // namespace
}  // namespace torchedge
