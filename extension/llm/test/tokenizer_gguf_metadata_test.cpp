// GgufMetadata: every value type round-trips; truncation at every byte, bad
// magic, unsupported versions, huge counts and lengths, unknown types and
// duplicate keys are Errors with messages (never crashes); load() reads the
// metadata of a file without touching its tensor data.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "extension/llm/tokenizer/gguf_metadata.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// Writes GGUF bytes by hand, little-endian.
class GgufBuilder {
 public:
  explicit GgufBuilder(uint32_t version = 3, uint64_t tensor_count = 0) {
    bytes_.insert(bytes_.end(), {'G', 'G', 'U', 'F'});
    u32(version);
    u64(tensor_count);
    count_at_ = bytes_.size();
    u64(0);
  }

  GgufBuilder& u8(uint8_t v) { return raw(&v, 1); }
  GgufBuilder& u16(uint16_t v) { return le(v, 2); }
  GgufBuilder& u32(uint32_t v) { return le(v, 4); }
  GgufBuilder& u64(uint64_t v) { return le(v, 8); }
  GgufBuilder& f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return u32(b);
  }
  GgufBuilder& f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return u64(b);
  }
  GgufBuilder& str(const std::string& s) {
    u64(s.size());
    return raw(s.data(), s.size());
  }
  // Starts a key/value: key and type; the caller writes the value.
  GgufBuilder& key(const std::string& k, GgufType type) {
    ++kv_count_;
    str(k);
    return u32(static_cast<uint32_t>(type));
  }
  GgufBuilder& array_header(GgufType element, uint64_t count) {
    u32(static_cast<uint32_t>(element));
    return u64(count);
  }
  GgufBuilder& raw(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
    return *this;
  }

  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out = bytes_;
    for (int i = 0; i < 8; ++i) out[count_at_ + i] = static_cast<uint8_t>(kv_count_ >> (8 * i));
    return out;
  }

 private:
  GgufBuilder& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }

  std::vector<uint8_t> bytes_;
  size_t count_at_ = 0;
  uint64_t kv_count_ = 0;
};

// One key of every type, arrays of every element type, nested arrays.
std::vector<uint8_t> every_type_file() {
  GgufBuilder b;
  b.key("t.u8", GgufType::UInt8).u8(200);
  b.key("t.i8", GgufType::Int8).u8(0xF6);  // -10
  b.key("t.u16", GgufType::UInt16).u16(60000);
  b.key("t.i16", GgufType::Int16).u16(0x8000);  // -32768
  b.key("t.u32", GgufType::UInt32).u32(4000000000u);
  b.key("t.i32", GgufType::Int32).u32(0xFFFFFFFF);  // -1
  b.key("t.f32", GgufType::Float32).f32(1.5f);
  b.key("t.bool", GgufType::Bool).u8(1);
  b.key("t.string", GgufType::String).str("héllo");
  b.key("t.u64", GgufType::UInt64).u64(std::numeric_limits<uint64_t>::max());
  b.key("t.i64", GgufType::Int64).u64(static_cast<uint64_t>(-5));
  b.key("t.f64", GgufType::Float64).f64(-2.25);
  b.key("a.strings", GgufType::Array).array_header(GgufType::String, 3).str("a").str("").str("ccc");
  b.key("a.i32", GgufType::Array).array_header(GgufType::Int32, 3).u32(1).u32(0xFFFFFFFE).u32(3);
  b.key("a.u8", GgufType::Array).array_header(GgufType::UInt8, 2).u8(7).u8(255);
  b.key("a.i16", GgufType::Array).array_header(GgufType::Int16, 1).u16(0xFFFF);
  b.key("a.f32", GgufType::Array).array_header(GgufType::Float32, 2).f32(0.5f).f32(-1.0f);
  b.key("a.f64", GgufType::Array).array_header(GgufType::Float64, 1).f64(3.0);
  b.key("a.bool", GgufType::Array).array_header(GgufType::Bool, 2).u8(0).u8(1);
  b.key("a.u64", GgufType::Array).array_header(GgufType::UInt64, 1).u64(1ull << 63);
  b.key("a.empty", GgufType::Array).array_header(GgufType::Int64, 0);
  b.key("a.nested", GgufType::Array).array_header(GgufType::Array, 2);
  b.array_header(GgufType::UInt16, 2).u16(1).u16(2);
  b.array_header(GgufType::String, 1).str("x");
  return b.bytes();
}

Result<GgufMetadata> parse(const std::vector<uint8_t>& bytes) {
  return GgufMetadata::parse(bytes.data(), bytes.size());
}

TEST(GgufMetadataTest, EveryTypeRoundTrips) {
  const std::vector<uint8_t> file = every_type_file();
  Result<GgufMetadata> r = parse(file);
  ASSERT_TRUE(r.ok()) << last_error_message();
  const GgufMetadata& m = r.get();
  EXPECT_EQ(m.version(), 3u);
  EXPECT_EQ(m.tensor_count(), 0u);
  EXPECT_EQ(m.metadata_end(), file.size());
  ASSERT_EQ(m.size(), 22u);
  EXPECT_EQ(m.key(0), "t.u8");
  EXPECT_EQ(m.get_int("t.u8").get(), 200);
  EXPECT_EQ(m.get_int("t.i8").get(), -10);
  EXPECT_EQ(m.get_int("t.u16").get(), 60000);
  EXPECT_EQ(m.get_int("t.i16").get(), -32768);
  EXPECT_EQ(m.get_uint("t.u32").get(), 4000000000u);
  EXPECT_EQ(m.get_int("t.i32").get(), -1);
  EXPECT_EQ(m.get_float("t.f32").get(), 1.5);
  EXPECT_TRUE(m.get_bool("t.bool").get());
  EXPECT_EQ(m.get_string("t.string").get(), "héllo");
  EXPECT_EQ(m.get_uint("t.u64").get(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(m.get_int("t.i64").get(), -5);
  EXPECT_EQ(m.get_float("t.f64").get(), -2.25);
  EXPECT_EQ(m.get_float("t.u32").get(), 4e9);  // integers convert to floats

  Span<const std::string> strings = m.get_string_array("a.strings").get();
  ASSERT_EQ(strings.size(), 3u);
  EXPECT_EQ(strings[0], "a");
  EXPECT_EQ(strings[1], "");
  EXPECT_EQ(strings[2], "ccc");
  EXPECT_EQ(m.get_int_array("a.i32").get(), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(m.get_int_array("a.u8").get(), (std::vector<int64_t>{7, 255}));
  EXPECT_EQ(m.get_int_array("a.i16").get(), (std::vector<int64_t>{-1}));
  EXPECT_EQ(m.get_int_array("a.bool").get(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(m.get_float_array("a.f32").get(), (std::vector<double>{0.5, -1.0}));
  EXPECT_EQ(m.get_float_array("a.f64").get(), (std::vector<double>{3.0}));
  EXPECT_EQ(m.get_float_array("a.i32").get(), (std::vector<double>{1, -2, 3}));
  EXPECT_TRUE(m.get_int_array("a.empty").get().empty());
  const GgufValue* nested = m.find("a.nested");
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->element_type(), GgufType::Array);
  ASSERT_EQ(nested->array_size(), 2u);
  EXPECT_EQ(nested->items()[0].element_type(), GgufType::UInt16);
  EXPECT_EQ(nested->items()[0].int_at(1), 2);
  EXPECT_EQ(nested->items()[1].strings()[0], "x");
}

TEST(GgufMetadataTest, GettersNameTheKeyAndTheTypes) {
  Result<GgufMetadata> r = parse(every_type_file());
  ASSERT_TRUE(r.ok());
  const GgufMetadata& m = r.get();
  EXPECT_EQ(m.find("absent"), nullptr);
  EXPECT_EQ(m.get_int("absent.key").error(), Error::NotFound);
  EXPECT_NE(std::strstr(last_error_message(), "'absent.key' is absent"), nullptr);
  EXPECT_EQ(m.get_string("t.u32").error(), Error::InvalidType);
  EXPECT_STREQ(last_error_message(), "GGUF key 't.u32' holds uint32, expected a string");
  EXPECT_EQ(m.get_string_array("a.i32").error(), Error::InvalidType);
  EXPECT_NE(std::strstr(last_error_message(), "an array of int32"), nullptr);
  EXPECT_EQ(m.get_int("t.u64").error(), Error::InvalidType);  // above INT64_MAX
  EXPECT_EQ(m.get_uint("t.i64").error(), Error::InvalidType);  // negative
  EXPECT_EQ(m.get_int_array("a.u64").error(), Error::InvalidType);
  EXPECT_EQ(m.get_bool("t.u8").error(), Error::InvalidType);
  EXPECT_EQ(m.get_float("t.string").error(), Error::InvalidType);
  EXPECT_EQ(m.get_int_array("a.strings").error(), Error::InvalidType);
  EXPECT_EQ(m.get_float_array("a.bool").error(), Error::InvalidType);
}

TEST(GgufMetadataTest, EveryTruncationIsAnError) {
  const std::vector<uint8_t> file = every_type_file();
  for (size_t size = 0; size < file.size(); ++size) {
    // A copy of exactly `size` bytes, so reading past it is caught by ASan.
    std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<ptrdiff_t>(size));
    Result<GgufMetadata> r = GgufMetadata::parse(cut.data(), cut.size());
    ASSERT_FALSE(r.ok()) << "size " << size;
    EXPECT_EQ(r.error(), Error::InvalidProgram) << "size " << size;
    EXPECT_GT(std::strlen(last_error_message()), 10u);
  }
  std::vector<uint8_t> cut(file.begin(), file.end() - 1);
  parse(cut);
  EXPECT_NE(std::strstr(last_error_message(), "GGUF key 'a.nested'"), nullptr) << last_error_message();
  EXPECT_NE(std::strstr(last_error_message(), "truncated"), nullptr) << last_error_message();
}

TEST(GgufMetadataTest, RandomCorruptionNeverCrashes) {
  const std::vector<uint8_t> file = every_type_file();
  std::mt19937 rng(3);
  size_t rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bad = file;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    Result<GgufMetadata> r = parse(bad);
    rejected += r.ok() ? 0 : 1;
  }
  EXPECT_GT(rejected, 1000u);
}

TEST(GgufMetadataTest, BadMagicAndVersions) {
  std::vector<uint8_t> file = every_type_file();
  file[0] = 'X';
  EXPECT_EQ(parse(file).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "not a GGUF file"), nullptr);
  for (uint32_t version : {0u, 1u, 4u, 0x03000000u}) {
    std::vector<uint8_t> v = GgufBuilder(version).bytes();
    EXPECT_EQ(parse(v).error(), Error::NotSupported) << version;
  }
  parse(GgufBuilder(0x03000000u).bytes());
  EXPECT_NE(std::strstr(last_error_message(), "big-endian"), nullptr);
  parse(GgufBuilder(1).bytes());
  EXPECT_NE(std::strstr(last_error_message(), "version 1"), nullptr);
  EXPECT_TRUE(parse(GgufBuilder(2).bytes()).ok());
}

TEST(GgufMetadataTest, HugeCountsAndLengthsAreRejectedBeforeAllocating) {
  const uint64_t huge[] = {1ull << 40, 1ull << 62, ~0ull, ~0ull / 8 + 1};
  for (uint64_t n : huge) {
    // kv count.
    std::vector<uint8_t> f = GgufBuilder().bytes();
    for (int i = 0; i < 8; ++i) f[16 + i] = static_cast<uint8_t>(n >> (8 * i));
    EXPECT_EQ(parse(f).error(), Error::InvalidProgram);
    EXPECT_NE(std::strstr(last_error_message(), "need at least"), nullptr) << last_error_message();
    // tensor count.
    EXPECT_EQ(parse(GgufBuilder(3, n).bytes()).error(), Error::InvalidProgram);
    // key length, string length.
    GgufBuilder k;
    k.key("x", GgufType::UInt8);
    std::vector<uint8_t> kb = k.bytes();
    for (int i = 0; i < 8; ++i) kb[24 + i] = static_cast<uint8_t>(n >> (8 * i));
    EXPECT_EQ(parse(kb).error(), Error::InvalidProgram);
    GgufBuilder s;
    s.key("s", GgufType::String).u64(n).raw("abc", 3);
    EXPECT_EQ(parse(s.bytes()).error(), Error::InvalidProgram);
    EXPECT_NE(std::strstr(last_error_message(), "claims"), nullptr) << last_error_message();
    // array counts of every element type.
    for (uint32_t t = 0; t <= 12; ++t) {
      GgufBuilder a;
      a.key("a", GgufType::Array).array_header(static_cast<GgufType>(t), n).u64(0).u64(0);
      EXPECT_EQ(parse(a.bytes()).error(), Error::InvalidProgram) << "element type " << t;
    }
  }
}

TEST(GgufMetadataTest, MalformedEntriesAreErrors) {
  GgufBuilder unknown;
  unknown.key("k", static_cast<GgufType>(13)).u8(0);
  EXPECT_EQ(parse(unknown.bytes()).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "unknown value type 13"), nullptr);

  GgufBuilder element;
  element.key("k", GgufType::Array).array_header(static_cast<GgufType>(99), 1).u8(0);
  EXPECT_EQ(parse(element.bytes()).error(), Error::InvalidProgram);

  GgufBuilder boolean;
  boolean.key("k", GgufType::Bool).u8(2);
  EXPECT_EQ(parse(boolean.bytes()).error(), Error::InvalidProgram);
  GgufBuilder bools;
  bools.key("k", GgufType::Array).array_header(GgufType::Bool, 2).u8(1).u8(7);
  EXPECT_EQ(parse(bools.bytes()).error(), Error::InvalidProgram);

  GgufBuilder duplicate;
  duplicate.key("dup", GgufType::UInt8).u8(1);
  duplicate.key("dup", GgufType::UInt8).u8(2);
  EXPECT_EQ(parse(duplicate.bytes()).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "twice"), nullptr);

  GgufBuilder empty_key;
  empty_key.key("", GgufType::UInt8).u8(1);
  EXPECT_EQ(parse(empty_key.bytes()).error(), Error::InvalidProgram);

  GgufBuilder deep;
  deep.key("deep", GgufType::Array).array_header(GgufType::Array, 1);
  deep.array_header(GgufType::Array, 1).array_header(GgufType::Array, 1);
  deep.array_header(GgufType::UInt8, 0);
  EXPECT_EQ(parse(deep.bytes()).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), "nested"), nullptr);

  EXPECT_EQ(GgufMetadata::parse(nullptr, 0).error(), Error::InvalidProgram);
}

std::string temp_path(const char* name) {
  return std::string(testing::TempDir()) + "/torchedge_gguf_" + name + "_" +
         std::to_string(getpid());
}

TEST(GgufMetadataTest, LoadReadsOnlyTheMetadataOfALargeFile) {
  const std::vector<uint8_t> meta = every_type_file();
  const std::string path = temp_path("large");
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(fwrite(meta.data(), 1, meta.size(), f), meta.size());
  fclose(f);
  // 4 GiB of (sparse) "tensor data" behind the metadata.
  ASSERT_EQ(truncate(path.c_str(), 4ll << 30), 0);
  const auto start = std::chrono::steady_clock::now();
  Result<GgufMetadata> r = GgufMetadata::load(path);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << last_error_message();
  EXPECT_EQ(r->get_string("t.string").get(), "héllo");
  EXPECT_LT(seconds, 0.5);
  std::remove(path.c_str());

  // A file cut short is an error naming the file.
  const std::string cut = temp_path("cut");
  f = fopen(cut.c_str(), "wb");
  ASSERT_EQ(fwrite(meta.data(), 1, meta.size() / 2, f), meta.size() / 2);
  fclose(f);
  EXPECT_EQ(GgufMetadata::load(cut).error(), Error::InvalidProgram);
  EXPECT_NE(std::strstr(last_error_message(), cut.c_str()), nullptr);
  std::remove(cut.c_str());
}

TEST(GgufMetadataTest, LoadReportsMissingAndUnreadablePaths) {
  EXPECT_EQ(GgufMetadata::load("/nonexistent/dir/model.gguf").error(), Error::NotFound);
  EXPECT_NE(std::strstr(last_error_message(), "cannot open"), nullptr);
  EXPECT_EQ(GgufMetadata::load(testing::TempDir()).error(), Error::AccessFailed);
}

}  // namespace
}  // namespace llm
}  // namespace torchedge
