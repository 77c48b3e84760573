// torchedge/extension/llm/tokenizer/gguf_metadata.h
//
// A hardened reader of GGUF metadata: the header and the key/value section
// only. Tensor infos and tensor data are never read, so opening a 100 MB model
// costs the few megabytes of its vocabulary.
//
// Layout (little-endian; versions 2 and 3 share it):
//
//   "GGUF"  u32 version  u64 tensor_count  u64 kv_count
//   kv_count x { string key, u32 value_type, value }      <- read here
//   tensor_count x tensor info, padding, tensor data       <- not read
//
//   string = u64 byte length, bytes (no terminator)
//   array  = u32 element type, u64 count, count elements (arrays may nest)
//
// Untrusted input: every length and count is checked against the bytes the
// file still holds (overflow-safe: a count is compared with remaining / its
// smallest encoding) before anything is allocated or read, so the memory used
// is bounded by a small multiple of the file size. A truncated or corrupt file
// is InvalidProgram with a message naming the offset, the key and what was
// expected; it never crashes. Version 1 files (32-bit lengths) and big-endian
// files are NotSupported. Duplicate keys are InvalidProgram.
//
// A GgufMetadata owns all its data (nothing points into the file) and is
// immutable: share it across threads freely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace llm {

/// GGUF value types, with their wire values.
enum class GgufType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

/// "uint32", "string", "array", ...; "unknown" for other values.
const char* gguf_type_name(GgufType type);

/// Bytes of one value of a numeric or bool type; 0 for string and array.
size_t gguf_scalar_size(GgufType type);

/// Arrays nest at most this deep (an array of arrays of arrays).
constexpr int kGgufMaxArrayDepth = 3;

/// One metadata value: a scalar, a string or an array.
class GgufValue {
 public:
  GgufType type() const { return type_; }
  /// Type of the elements of an array; type() for a non-array.
  GgufType element_type() const { return type_ == GgufType::Array ? element_type_ : type_; }

  bool is_integer() const;  // a scalar of an integer type (not bool)
  bool is_float() const;    // a float32 / float64 scalar

  /// Integer scalars. int_value() of a uint64 above INT64_MAX is undefined:
  /// check fits_int64() (GgufMetadata::get_int does).
  int64_t int_value() const { return static_cast<int64_t>(bits_); }
  uint64_t uint_value() const { return bits_; }
  bool is_negative() const;
  bool fits_int64() const;
  double float_value() const;  // float scalars; integer scalars converted
  bool bool_value() const { return bits_ != 0; }
  const std::string& string_value() const { return string_; }

  /// Number of elements of an array (0 for a non-array).
  size_t array_size() const;
  /// Elements of an array of strings (empty otherwise).
  Span<const std::string> strings() const { return {strings_.data(), strings_.size()}; }
  /// Elements of an array of arrays (empty otherwise).
  Span<const GgufValue> items() const { return {items_.data(), items_.size()}; }
  /// Element `i` < array_size() of an array of integers / of bools.
  int64_t int_at(size_t i) const;
  uint64_t uint_at(size_t i) const;
  /// Element `i` of an array of floats (or of integers, converted).
  double float_at(size_t i) const;

 private:
  friend class GgufParser;

  GgufType type_ = GgufType::UInt8;
  GgufType element_type_ = GgufType::UInt8;
  uint64_t bits_ = 0;  // integer / bool / float scalars: sign-extended or IEEE bits
  std::string string_;
  std::vector<uint8_t> raw_;  // array of numbers / bools: the elements' little-endian bytes
  std::vector<std::string> strings_;
  std::vector<GgufValue> items_;
};

class GgufMetadata {
 public:
  /// Reads the header and metadata of the GGUF file at `path`. NotFound if it
  /// does not exist, AccessFailed if it cannot be read, InvalidProgram if it is
  /// not a (well-formed) GGUF file.
  static Result<GgufMetadata> load(const std::string& path);

  /// The same from bytes in memory: the file's first `size` bytes, at least
  /// through the metadata. Nothing is kept pointing into `data`.
  static Result<GgufMetadata> parse(const void* data, size_t size);

  uint32_t version() const { return version_; }
  uint64_t tensor_count() const { return tensor_count_; }
  /// Offset where the tensor infos start (the end of the key/value section).
  uint64_t metadata_end() const { return metadata_end_; }

  /// Number of keys, and the keys in file order.
  size_t size() const { return entries_.size(); }
  const std::string& key(size_t i) const { return entries_[i].first; }
  const GgufValue& value(size_t i) const { return entries_[i].second; }

  /// The value of `key`, or nullptr.
  const GgufValue* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Typed getters: NotFound if the key is absent, InvalidType (naming the key,
  // the type found and the type expected) if its value has another type.

  Result<std::string_view> get_string(std::string_view key) const;  // lives as long as this
  /// Any integer type; InvalidType for a uint64 above INT64_MAX.
  Result<int64_t> get_int(std::string_view key) const;
  /// Any integer type; InvalidType for a negative value.
  Result<uint64_t> get_uint(std::string_view key) const;
  /// float32 / float64, or any integer type converted.
  Result<double> get_float(std::string_view key) const;
  Result<bool> get_bool(std::string_view key) const;
  /// An array of strings; the span lives as long as this.
  Result<Span<const std::string>> get_string_array(std::string_view key) const;
  /// An array of any integer type (bools as 0 / 1), each element as int64;
  /// InvalidType if a uint64 element exceeds INT64_MAX.
  Result<std::vector<int64_t>> get_int_array(std::string_view key) const;
  /// An array of floats or integers, each element as double.
  Result<std::vector<double>> get_float_array(std::string_view key) const;

 private:
  friend class GgufParser;

  // The value of `key`, or NotFound with a message.
  Result<const GgufValue*> lookup(std::string_view key) const;

  uint32_t version_ = 0;
  uint64_t tensor_count_ = 0;
  uint64_t metadata_end_ = 0;
  std::vector<std::pair<std::string, GgufValue>> entries_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace llm
}  // namespace torchedge
