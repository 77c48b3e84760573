#include "extension/llm/tokenizer/gguf_metadata.h"

#include <cstring>
#include <limits>

#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// Keys quoted in messages are clipped so the message keeps its tail.
constexpr int kMaxQuotedKey = 96;

int quoted_length(std::string_view key) {
  return key.size() > static_cast<size_t>(kMaxQuotedKey) ? kMaxQuotedKey
                                                         : static_cast<int>(key.size());
}

bool is_integer_type(GgufType t) {
  return t == GgufType::UInt8 || t == GgufType::Int8 || t == GgufType::UInt16 ||
         t == GgufType::Int16 || t == GgufType::UInt32 || t == GgufType::Int32 ||
         t == GgufType::UInt64 || t == GgufType::Int64;
}

bool is_signed_type(GgufType t) {
  return t == GgufType::Int8 || t == GgufType::Int16 || t == GgufType::Int32 ||
         t == GgufType::Int64;
}

bool is_float_type(GgufType t) { return t == GgufType::Float32 || t == GgufType::Float64; }

// Little-endian element `i` of `raw`, sign-extended for signed types; floats
// come back as their IEEE bits.
uint64_t raw_element(const std::vector<uint8_t>& raw, GgufType type, size_t i) {
  const size_t n = gguf_scalar_size(type);
  uint64_t v = 0;
  for (size_t b = 0; b < n; ++b) v |= static_cast<uint64_t>(raw[i * n + b]) << (8 * b);
  if (is_signed_type(type) && n < 8 && (v >> (8 * n - 1)) != 0) v |= ~uint64_t{0} << (8 * n);
  return v;
}

double bits_to_double(uint64_t bits, GgufType type) {
  if (type == GgufType::Float32) {
    const uint32_t b32 = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b32, sizeof(f));
    return f;
  }
  if (type == GgufType::Float64) {
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  if (is_signed_type(type)) return static_cast<double>(static_cast<int64_t>(bits));
  return static_cast<double>(bits);
}

const char* type_description(const GgufValue& v) {
  return v.type() == GgufType::Array ? "an array" : gguf_type_name(v.type());
}

Error wrong_type(std::string_view key, const GgufValue& v, const char* expected) {
  if (v.type() == GgufType::Array) {
    record_error_message("GGUF key '%.*s' holds an array of %s, expected %s", quoted_length(key),
                         key.data(), gguf_type_name(v.element_type()), expected);
  } else {
    record_error_message("GGUF key '%.*s' holds %s, expected %s", quoted_length(key), key.data(),
                         type_description(v), expected);
  }
  return Error::InvalidType;
}

}  // namespace

size_t gguf_scalar_size(GgufType type) {
  switch (type) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::Bool:
      return 1;
    case GgufType::UInt16:
    case GgufType::Int16:
      return 2;
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::Float32:
      return 4;
    case GgufType::UInt64:
    case GgufType::Int64:
    case GgufType::Float64:
      return 8;
    case GgufType::String:
    case GgufType::Array:
      return 0;
  }
  return 0;
}

const char* gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::UInt8: return "uint8";
    case GgufType::Int8: return "int8";
    case GgufType::UInt16: return "uint16";
    case GgufType::Int16: return "int16";
    case GgufType::UInt32: return "uint32";
    case GgufType::Int32: return "int32";
    case GgufType::Float32: return "float32";
    case GgufType::Bool: return "bool";
    case GgufType::String: return "string";
    case GgufType::Array: return "array";
    case GgufType::UInt64: return "uint64";
    case GgufType::Int64: return "int64";
    case GgufType::Float64: return "float64";
  }
  return "unknown";
}

// ---- GgufValue --------------------------------------------------------------

bool GgufValue::is_integer() const { return is_integer_type(type_); }
bool GgufValue::is_float() const { return is_float_type(type_); }

bool GgufValue::is_negative() const {
  return is_signed_type(type_) && static_cast<int64_t>(bits_) < 0;
}

bool GgufValue::fits_int64() const {
  return type_ != GgufType::UInt64 || bits_ <= static_cast<uint64_t>(INT64_MAX);
}

double GgufValue::float_value() const { return bits_to_double(bits_, type_); }

size_t GgufValue::array_size() const {
  if (type_ != GgufType::Array) return 0;
  if (element_type_ == GgufType::String) return strings_.size();
  if (element_type_ == GgufType::Array) return items_.size();
  return raw_.size() / gguf_scalar_size(element_type_);
}

int64_t GgufValue::int_at(size_t i) const {
  return static_cast<int64_t>(raw_element(raw_, element_type_, i));
}

uint64_t GgufValue::uint_at(size_t i) const { return raw_element(raw_, element_type_, i); }

double GgufValue::float_at(size_t i) const {
  return bits_to_double(raw_element(raw_, element_type_, i), element_type_);
}

// ---- GgufMetadata getters ---------------------------------------------------

const GgufValue* GgufMetadata::find(std::string_view key) const {
  auto it = index_.find(std::string(key));
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

Result<const GgufValue*> GgufMetadata::lookup(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) {
    record_error_message("GGUF key '%.*s' is absent", quoted_length(key), key.data());
    return Error::NotFound;
  }
  return v;
}

Result<std::string_view> GgufMetadata::get_string(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  if (v->type() != GgufType::String) return wrong_type(key, *v, "a string");
  return std::string_view(v->string_value());
}

Result<int64_t> GgufMetadata::get_int(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  if (!v->is_integer()) return wrong_type(key, *v, "an integer");
  TE_CHECK_OR_RETURN(v->fits_int64(), Error::InvalidType,
                     "GGUF key '%.*s' holds %llu, more than int64 holds", quoted_length(key),
                     key.data(), static_cast<unsigned long long>(v->uint_value()));
  return v->int_value();
}

Result<uint64_t> GgufMetadata::get_uint(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  if (!v->is_integer()) return wrong_type(key, *v, "an integer");
  TE_CHECK_OR_RETURN(!v->is_negative(), Error::InvalidType,
                     "GGUF key '%.*s' holds %lld, expected a non-negative integer",
                     quoted_length(key), key.data(), static_cast<long long>(v->int_value()));
  return v->uint_value();
}

Result<double> GgufMetadata::get_float(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  if (!v->is_float() && !v->is_integer()) return wrong_type(key, *v, "a number");
  return v->float_value();
}

Result<bool> GgufMetadata::get_bool(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  if (v->type() != GgufType::Bool) return wrong_type(key, *v, "a bool");
  return v->bool_value();
}

Result<Span<const std::string>> GgufMetadata::get_string_array(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  if (v->type() != GgufType::Array || v->element_type() != GgufType::String) {
    return wrong_type(key, *v, "an array of strings");
  }
  return v->strings();
}

Result<std::vector<int64_t>> GgufMetadata::get_int_array(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  const GgufType e = v->element_type();
  if (v->type() != GgufType::Array || !(is_integer_type(e) || e == GgufType::Bool)) {
    return wrong_type(key, *v, "an array of integers");
  }
  std::vector<int64_t> out(v->array_size());
  for (size_t i = 0; i < out.size(); ++i) {
    const uint64_t u = v->uint_at(i);
    TE_CHECK_OR_RETURN(e != GgufType::UInt64 || u <= static_cast<uint64_t>(INT64_MAX),
                       Error::InvalidType, "GGUF key '%.*s': element %zu (%llu) exceeds int64",
                       quoted_length(key), key.data(), i, static_cast<unsigned long long>(u));
    out[i] = static_cast<int64_t>(u);
  }
  return out;
}

Result<std::vector<double>> GgufMetadata::get_float_array(std::string_view key) const {
  TE_ASSIGN_OR_RETURN(const GgufValue* v, lookup(key));
  const GgufType e = v->element_type();
  if (v->type() != GgufType::Array || !(is_integer_type(e) || is_float_type(e))) {
    return wrong_type(key, *v, "an array of numbers");
  }
  std::vector<double> out(v->array_size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = v->float_at(i);
  return out;
}

}  // namespace llm
}  // namespace torchedge
