// Parsing of GGUF headers and metadata (the contract is in gguf_metadata.h).
//
// Reads go through GgufInput, which knows how many bytes the file still
// holds: every length is checked against that before a buffer is sized, and
// every count against remaining / (the smallest size one element can have).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "extension/llm/tokenizer/gguf_metadata.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

constexpr uint32_t kMaxKeyLength = 65535;  // the GGUF spec's limit
constexpr size_t kChunk = 1 << 16;         // file reads, in bytes

// Smallest encodings: a key/value (8-byte key length, 1-byte key, 4-byte
// type, 1-byte value), a tensor info (8-byte name length, 4-byte rank,
// 4-byte type, 8-byte offset), a string, an array.
constexpr uint64_t kMinKvBytes = 14;
constexpr uint64_t kMinTensorInfoBytes = 24;
constexpr uint64_t kMinStringBytes = 8;
constexpr uint64_t kMinArrayBytes = 12;

struct FileCloser {
  void operator()(FILE* f) const { fclose(f); }
};

// Bytes of a GGUF file in memory or on disk, read front to back.
class GgufInput {
 public:
  GgufInput(const uint8_t* data, uint64_t size) : memory_(data), size_(size) {}
  GgufInput(FILE* file, uint64_t size) : file_(file), size_(size) {}

  uint64_t offset() const { return offset_; }
  uint64_t remaining() const { return size_ - offset_; }
  uint64_t size() const { return size_; }

  // Reads `n` bytes; InvalidProgram (naming `what`) if the file ends first.
  Error read(void* dst, uint64_t n, const char* what) {
    TE_CHECK_OR_RETURN(n <= remaining(), Error::InvalidProgram,
                       "GGUF file truncated: %s at offset %llu needs %llu bytes, %llu remain "
                       "(file size %llu)",
                       what, ull(offset_), ull(n), ull(remaining()), ull(size_));
    if (memory_ != nullptr) {
      if (n > 0) std::memcpy(dst, memory_ + offset_, static_cast<size_t>(n));
      offset_ += n;
      return Error::Ok;
    }
    auto* out = static_cast<uint8_t*>(dst);
    while (n > 0) {
      if (buffer_pos_ == buffer_.size()) TE_RETURN_IF_ERROR(refill());
      const uint64_t take = std::min<uint64_t>(n, buffer_.size() - buffer_pos_);
      std::memcpy(out, buffer_.data() + buffer_pos_, static_cast<size_t>(take));
      buffer_pos_ += static_cast<size_t>(take);
      offset_ += take;
      out += take;
      n -= take;
    }
    return Error::Ok;
  }

  template <typename T>
  Error read_le(T& value, const char* what) {
    uint8_t bytes[sizeof(T)];
    TE_RETURN_IF_ERROR(read(bytes, sizeof(T), what));
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    value = static_cast<T>(v);
    return Error::Ok;
  }

  // u64 length + bytes; the length is checked before `out` is sized.
  Error read_string(std::string& out, const char* what) {
    uint64_t length = 0;
    TE_RETURN_IF_ERROR(read_le(length, what));
    TE_CHECK_OR_RETURN(length <= remaining(), Error::InvalidProgram,
                       "GGUF file truncated or corrupt: %s at offset %llu claims %llu bytes, %llu "
                       "remain",
                       what, ull(offset_ - 8), ull(length), ull(remaining()));
    out.resize(static_cast<size_t>(length));
    return read(&out[0], length, what);
  }

  // `count` elements of at least `min_bytes` each must fit in what remains.
  Error check_count(uint64_t count, uint64_t min_bytes, const char* what) const {
    TE_CHECK_OR_RETURN(count <= remaining() / min_bytes, Error::InvalidProgram,
                       "GGUF file truncated or corrupt: %llu %s at offset %llu need at least %llu "
                       "bytes each, %llu remain",
                       ull(count), what, ull(offset_), ull(min_bytes), ull(remaining()));
    return Error::Ok;
  }

  static unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

 private:
  Error refill() {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, remaining()));
    buffer_.resize(want);
    const size_t got = fread(buffer_.data(), 1, want, file_);
    buffer_.resize(got);
    buffer_pos_ = 0;
    TE_CHECK_OR_RETURN(got == want && got > 0, Error::AccessFailed,
                       "reading the GGUF file failed at offset %llu (%s)", ull(offset_),
                       ferror(file_) ? strerror(errno) : "file shrank while being read");
    return Error::Ok;
  }

  const uint8_t* memory_ = nullptr;
  FILE* file_ = nullptr;
  uint64_t size_ = 0;
  uint64_t offset_ = 0;
  std::vector<uint8_t> buffer_;
  size_t buffer_pos_ = 0;
};

bool is_known_type(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::Float64); }

}  // namespace

// Builds GgufMetadata / GgufValue (it is their friend).
class GgufParser {
 public:
  explicit GgufParser(GgufInput& in) : in_(in) {}

  Error parse(GgufMetadata& meta) {
    TE_RETURN_IF_ERROR(parse_header(meta));
    std::string key;
    for (uint64_t i = 0; i < kv_count_; ++i) {
      const uint64_t at = in_.offset();
      Error err = parse_entry(key, meta);
      if (err != Error::Ok) {
        if (key.empty()) {
          prepend_error_context("GGUF metadata entry %llu of %llu (offset %llu)",
                                GgufInput::ull(i), GgufInput::ull(kv_count_), GgufInput::ull(at));
        } else {
          prepend_error_context("GGUF key '%.96s'", key.c_str());
        }
        return err;
      }
    }
    meta.metadata_end_ = in_.offset();
    return Error::Ok;
  }

 private:
  Error parse_header(GgufMetadata& meta) {
    uint8_t magic[4] = {0, 0, 0, 0};
    TE_CHECK_OR_RETURN(in_.size() >= 4, Error::InvalidProgram,
                       "not a GGUF file: %llu bytes, too short for the magic",
                       GgufInput::ull(in_.size()));
    TE_RETURN_IF_ERROR(in_.read(magic, 4, "magic"));
    TE_CHECK_OR_RETURN(std::memcmp(magic, "GGUF", 4) == 0, Error::InvalidProgram,
                       "not a GGUF file: magic is %02x %02x %02x %02x, expected 47 47 55 46 "
                       "(\"GGUF\")",
                       magic[0], magic[1], magic[2], magic[3]);
    uint32_t version = 0;
    TE_RETURN_IF_ERROR(in_.read_le(version, "version"));
    TE_CHECK_OR_RETURN((version & 0xFFFF) != 0, Error::NotSupported,
                       "big-endian GGUF files are not supported (version field 0x%08x)", version);
    TE_CHECK_OR_RETURN(version != 1, Error::NotSupported,
                       "GGUF version 1 (32-bit lengths) is not supported; versions 2 and 3 are");
    TE_CHECK_OR_RETURN(version == 2 || version == 3, Error::NotSupported,
                       "GGUF version %u is not supported; versions 2 and 3 are", version);
    meta.version_ = version;
    TE_RETURN_IF_ERROR(in_.read_le(meta.tensor_count_, "tensor count"));
    TE_RETURN_IF_ERROR(in_.read_le(kv_count_, "metadata key/value count"));
    TE_RETURN_IF_ERROR(in_.check_count(kv_count_, kMinKvBytes, "metadata key/values"));
    TE_RETURN_IF_ERROR(in_.check_count(meta.tensor_count_, kMinTensorInfoBytes, "tensor infos"));
    return Error::Ok;
  }

  Error parse_entry(std::string& key, GgufMetadata& meta) {
    key.clear();
    std::string name;
    TE_RETURN_IF_ERROR(in_.read_string(name, "key"));
    TE_CHECK_OR_RETURN(!name.empty() && name.size() <= kMaxKeyLength, Error::InvalidProgram,
                       "GGUF file corrupt: key of %zu bytes (1..%u allowed)", name.size(),
                       kMaxKeyLength);
    key = name;
    TE_CHECK_OR_RETURN(meta.index_.count(name) == 0, Error::InvalidProgram,
                       "GGUF file corrupt: the key appears twice");
    uint32_t type = 0;
    TE_RETURN_IF_ERROR(in_.read_le(type, "value type"));
    GgufValue value;
    TE_RETURN_IF_ERROR(parse_value(type, 0, value));
    meta.index_.emplace(name, meta.entries_.size());
    meta.entries_.emplace_back(std::move(name), std::move(value));
    return Error::Ok;
  }

  Error parse_value(uint32_t wire_type, int depth, GgufValue& value) {
    TE_CHECK_OR_RETURN(is_known_type(wire_type), Error::InvalidProgram,
                       "GGUF file corrupt: unknown value type %u at offset %llu", wire_type,
                       GgufInput::ull(in_.offset() - 4));
    const auto type = static_cast<GgufType>(wire_type);
    value.type_ = type;
    if (type == GgufType::String) return in_.read_string(value.string_, "string value");
    if (type == GgufType::Array) return parse_array(depth, value);
    const size_t n = gguf_scalar_size(type);
    uint8_t bytes[8] = {};
    TE_RETURN_IF_ERROR(in_.read(bytes, n, gguf_type_name(type)));
    if (type == GgufType::Bool) {
      TE_CHECK_OR_RETURN(bytes[0] <= 1, Error::InvalidProgram,
                         "GGUF file corrupt: bool value %u at offset %llu (0 or 1 allowed)",
                         bytes[0], GgufInput::ull(in_.offset() - 1));
    }
    uint64_t bits = 0;
    for (size_t i = 0; i < n; ++i) bits |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    const bool is_signed =
        type == GgufType::Int8 || type == GgufType::Int16 || type == GgufType::Int32;
    if (is_signed && (bits >> (8 * n - 1)) != 0) bits |= ~uint64_t{0} << (8 * n);
    value.bits_ = bits;
    return Error::Ok;
  }

  Error parse_array(int depth, GgufValue& value) {
    uint32_t element = 0;
    uint64_t count = 0;
    TE_RETURN_IF_ERROR(in_.read_le(element, "array element type"));
    TE_CHECK_OR_RETURN(is_known_type(element), Error::InvalidProgram,
                       "GGUF file corrupt: unknown array element type %u at offset %llu",
                       element, GgufInput::ull(in_.offset() - 4));
    TE_RETURN_IF_ERROR(in_.read_le(count, "array length"));
    const auto type = static_cast<GgufType>(element);
    value.element_type_ = type;
    if (type == GgufType::String) {
      TE_RETURN_IF_ERROR(in_.check_count(count, kMinStringBytes, "array strings"));
      value.strings_.resize(static_cast<size_t>(count));
      for (std::string& s : value.strings_) TE_RETURN_IF_ERROR(in_.read_string(s, "array string"));
      return Error::Ok;
    }
    if (type == GgufType::Array) {
      TE_CHECK_OR_RETURN(depth + 1 < kGgufMaxArrayDepth, Error::InvalidProgram,
                         "GGUF file corrupt: arrays nested more than %d deep",
                         kGgufMaxArrayDepth);
      TE_RETURN_IF_ERROR(in_.check_count(count, kMinArrayBytes, "nested arrays"));
      value.items_.resize(static_cast<size_t>(count));
      for (GgufValue& item : value.items_) {
        item.type_ = GgufType::Array;
        TE_RETURN_IF_ERROR(parse_array(depth + 1, item));
      }
      return Error::Ok;
    }
    const size_t n = gguf_scalar_size(type);
    TE_RETURN_IF_ERROR(in_.check_count(count, n, "array elements"));
    value.raw_.resize(static_cast<size_t>(count * n));
    TE_RETURN_IF_ERROR(in_.read(value.raw_.data(), count * n, "array elements"));
    if (type == GgufType::Bool) TE_RETURN_IF_ERROR(check_bools(value.raw_));
    return Error::Ok;
  }

  Error check_bools(const std::vector<uint8_t>& raw) const {
    for (size_t i = 0; i < raw.size(); ++i) {
      TE_CHECK_OR_RETURN(raw[i] <= 1, Error::InvalidProgram,
                         "GGUF file corrupt: bool value %u before offset %llu (0 or 1 allowed)",
                         raw[i], GgufInput::ull(in_.offset()));
    }
    return Error::Ok;
  }

  GgufInput& in_;
  uint64_t kv_count_ = 0;
};

Result<GgufMetadata> GgufMetadata::parse(const void* data, size_t size) {
  TE_CHECK_OR_RETURN(data != nullptr || size == 0, Error::InvalidArgument,
                     "GgufMetadata::parse: null data");
  GgufInput in(static_cast<const uint8_t*>(data), size);
  GgufMetadata meta;
  TE_RETURN_IF_ERROR(GgufParser(in).parse(meta));
  return meta;
}

Result<GgufMetadata> GgufMetadata::load(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> file(fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    const int err = errno;
    record_error_message("cannot open GGUF file '%.200s': %s", path.c_str(), strerror(err));
    return err == ENOENT ? Error::NotFound : Error::AccessFailed;
  }
  struct stat st;
  TE_CHECK_OR_RETURN(fstat(fileno(file.get()), &st) == 0 && S_ISREG(st.st_mode),
                     Error::AccessFailed, "'%.200s' is not a regular file", path.c_str());
  GgufInput in(file.get(), static_cast<uint64_t>(st.st_size));
  GgufMetadata meta;
  Error err = GgufParser(in).parse(meta);
  if (err != Error::Ok) {
    prepend_error_context("%.200s", path.c_str());
    return err;
  }
  return meta;
}

}  // namespace llm
}  // namespace torchedge
