#include "runtime/executor/external_tensor.h"

#include <cstdint>
#include <cstdio>

#include "runtime/core/error_message.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

namespace {

// Appends printf-style text to a fixed buffer, truncating silently.
class TextBuffer {
 public:
  TextBuffer(char* out, size_t capacity) : out_(out), capacity_(capacity) { out_[0] = '\0'; }
  void text(const char* s) { add(snprintf(out_ + used_, capacity_ - used_, "%s", s)); }
  void number(long long v, bool first) {
    add(snprintf(out_ + used_, capacity_ - used_, first ? "%lld" : ", %lld", v));
  }

 private:
  void add(int n) {
    if (n > 0) used_ += static_cast<size_t>(n);
    if (used_ >= capacity_) used_ = capacity_ - 1;
  }
  char* out_;
  size_t capacity_;
  size_t used_ = 0;
};

// "float32 [10, 20]" (dim order appended when it is not the default), for
// messages that show what the program expects next to what the file holds.
void describe(char* out, size_t capacity, ScalarType dtype, Span<const int32_t> sizes,
              Span<const uint8_t> dim_order) {
  TextBuffer b(out, capacity);
  b.text(is_valid_scalar_type(static_cast<int>(dtype)) ? to_string(dtype) : "unknown dtype");
  b.text(" [");
  for (size_t d = 0; d < sizes.size(); ++d) b.number(sizes[d], d == 0);
  b.text("]");
  bool contiguous = true;
  for (size_t d = 0; d < dim_order.size(); ++d) contiguous = contiguous && dim_order[d] == d;
  if (contiguous) return;
  b.text(" dim order (");
  for (size_t d = 0; d < dim_order.size(); ++d) b.number(dim_order[d], d == 0);
  b.text(")");
}

bool same_dim_order(Span<const uint8_t> stored, const flatbuffers::Vector<uint8_t>* declared,
                    size_t dim) {
  for (size_t d = 0; d < dim; ++d) {
    const uint8_t want = declared != nullptr ? declared->Get(static_cast<uint32_t>(d))
                                             : static_cast<uint8_t>(d);
    const uint8_t have = stored.empty() ? static_cast<uint8_t>(d) : stored[d];
    if (want != have) return false;
  }
  return stored.empty() || stored.size() == dim;
}

Error check_layout(const fb::Tensor* t, const NamedTensor& stored, const char* key,
                   size_t index) {
  const auto* sizes = t->sizes();
  const size_t dim = sizes->size();
  const auto dtype = static_cast<ScalarType>(t->scalar_type());
  bool same = stored.dtype == dtype && stored.sizes.size() == dim &&
              same_dim_order(stored.dim_order, t->dim_order(), dim);
  for (size_t d = 0; same && d < dim; ++d) same = stored.sizes[d] == sizes->Get(static_cast<uint32_t>(d));
  if (same) return Error::Ok;
  char want[160], have[160];
  describe(want, sizeof(want), dtype, Span<const int32_t>(sizes->data(), dim),
           t->dim_order() != nullptr ? Span<const uint8_t>(t->dim_order()->data(), dim)
                                     : Span<const uint8_t>());
  describe(have, sizeof(have), stored.dtype, stored.sizes, stored.dim_order);
  record_error_message("value %zu: tensor '%s' in %s is %s, the program expects %s (is the data "
                       "file for another program?)", index, key, stored.source, have, want);
  return Error::InvalidExternalData;
}

}  // namespace

bool is_external_tensor(const fb::Tensor* t) {
  const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
  return extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL;
}

Result<const void*> external_tensor_data(const fb::Tensor* t, size_t nbytes,
                                         const NamedDataMap* named_data, size_t index) {
  const flatbuffers::String* name = t->extra_tensor_info()->fully_qualified_name();
  TE_CHECK_OR_RETURN(name != nullptr && name->size() > 0, Error::InvalidProgram,
                     "value %zu: external tensor without a name", index);
  const char* key = name->c_str();
  TE_CHECK_OR_RETURN(named_data != nullptr, Error::InvalidExternalData,
                     "value %zu: tensor '%s' is stored in an external data file (.ptd), but no "
                     "data file was given", index, key);
  Result<NamedTensor> found = named_data->get(key, name->size());
  if (!found.ok()) {
    prepend_error_context("value %zu", index);
    return found.error();
  }
  if (found->has_layout) TE_RETURN_IF_ERROR(check_layout(t, found.get(), key, index));
  TE_CHECK_OR_RETURN(found->data.size() >= nbytes, Error::InvalidExternalData,
                     "value %zu: tensor '%s' in %s holds %zu bytes, the program needs %zu", index,
                     key, found->source, found->data.size(), nbytes);
  const size_t alignment = element_size(static_cast<ScalarType>(t->scalar_type()));
  TE_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(found->data.data()) % alignment == 0,
                     Error::InvalidExternalData,
                     "value %zu: tensor '%s' in %s is not aligned for its dtype", index, key,
                     found->source);
  return static_cast<const void*>(found->data.data());
}

}  // namespace torchedge
