#include "extension/flat_tensor/flat_tensor_data_map.h"

#include <cstdio>
#include <cstring>

#include "extension/flat_tensor/flat_tensor_header.h"
#include "runtime/core/error_message.h"
#include "runtime/core/tensor.h"
#include "schema/flat_tensor_generated.h"

namespace torchedge {

namespace ft = flat_tensor_flatbuffer;

namespace {

// All checks of this file fail the same way; the macro keeps them one line.
#define TE_BAD_PTD(cond, ...) TE_CHECK_OR_RETURN(cond, Error::InvalidExternalData, __VA_ARGS__)

bool range_fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// Where the flatbuffer and the segments are, checked against the file.
Result<FlatTensorHeader> read_header(DataLoader* loader, size_t file_size) {
  TE_BAD_PTD(file_size >= FlatTensorHeader::kNumHeadBytes,
             "file is %zu bytes, too small to be a .ptd data file", file_size);
  TE_ASSIGN_OR_RETURN(FreeableBuffer head, loader->load(0, FlatTensorHeader::kNumHeadBytes));
  TE_ASSIGN_OR_RETURN(FlatTensorHeader h, FlatTensorHeader::parse(head.data(), head.size()));
  TE_BAD_PTD(h.flatbuffer_offset >= FlatTensorHeader::kHeaderOffset + FlatTensorHeader::kMinLength &&
                 range_fits(h.flatbuffer_offset, h.flatbuffer_size, file_size),
             "header says the flatbuffer is %llu bytes at %llu but the file has %zu "
             "(truncated file?)",
             static_cast<unsigned long long>(h.flatbuffer_size),
             static_cast<unsigned long long>(h.flatbuffer_offset), file_size);
  const uint64_t flatbuffer_end = h.flatbuffer_offset + h.flatbuffer_size;
  TE_BAD_PTD(h.segment_base_offset >= flatbuffer_end && h.segment_base_offset <= file_size,
             "segment base offset %llu outside [flatbuffer end %llu, file size %zu]",
             static_cast<unsigned long long>(h.segment_base_offset),
             static_cast<unsigned long long>(flatbuffer_end), file_size);
  TE_BAD_PTD(h.segment_data_size <= file_size - h.segment_base_offset,
             "segment data (%llu bytes at %llu) runs past the end of the %zu-byte file "
             "(truncated file?)",
             static_cast<unsigned long long>(h.segment_data_size),
             static_cast<unsigned long long>(h.segment_base_offset), file_size);
  return h;
}

// A tensor layout the runtime can follow: known dtype, bounded rank,
// sizes >= 0, dim order a permutation, byte size inside `segment_size`.
Error check_layout(const ft::TensorLayout* layout, uint64_t segment_size, const char* key) {
  TE_BAD_PTD(is_valid_scalar_type(static_cast<int>(layout->scalar_type())),
             "'%s': unknown dtype %d", key, static_cast<int>(layout->scalar_type()));
  const auto* sizes = layout->sizes();
  const size_t dim = sizes == nullptr ? 0 : sizes->size();
  TE_BAD_PTD(dim <= static_cast<size_t>(kTensorDimensionLimit), "'%s': rank %zu exceeds %d", key,
             dim, kTensorDimensionLimit);
  const auto* order = layout->dim_order();
  TE_BAD_PTD(order == nullptr || order->size() == dim, "'%s': dim_order has %u entries for rank %zu",
             key, order == nullptr ? 0u : order->size(), dim);
  uint32_t seen = 0;
  uint64_t nbytes = element_size(static_cast<ScalarType>(layout->scalar_type()));
  for (size_t d = 0; d < dim; ++d) {
    const int32_t s = sizes->Get(d);
    TE_BAD_PTD(s >= 0, "'%s': negative size %d at dim %zu", key, s, d);
    TE_BAD_PTD(s == 0 || nbytes <= (uint64_t{1} << 62) / static_cast<uint64_t>(s),
               "'%s': tensor size overflows", key);
    nbytes *= static_cast<uint64_t>(s);
    if (order != nullptr) {
      const uint8_t o = order->Get(d);
      TE_BAD_PTD(o < dim && (seen & (1u << o)) == 0, "'%s': dim_order is not a permutation", key);
      seen |= 1u << o;
    }
  }
  TE_BAD_PTD(nbytes <= segment_size, "'%s': layout needs %llu bytes, its segment has %llu", key,
             static_cast<unsigned long long>(nbytes),
             static_cast<unsigned long long>(segment_size));
  return Error::Ok;
}

// Every index, offset and size get() will follow.
Error check_tables(const ft::FlatTensor* root, uint64_t segment_data_size) {
  TE_BAD_PTD(root->version() <= FlatTensorDataMap::kMaxVersion,
             "FlatTensor version %u is newer than this runtime reads (%u)", root->version(),
             FlatTensorDataMap::kMaxVersion);
  const auto* segments = root->segments();
  const uint32_t num_segments = segments == nullptr ? 0 : segments->size();
  for (uint32_t i = 0; i < num_segments; ++i) {
    const ft::DataSegment* s = segments->Get(i);
    TE_BAD_PTD(range_fits(s->offset(), s->size(), segment_data_size),
               "segment %u (%llu bytes at %llu) runs past the %llu bytes of segment data "
               "(truncated file?)",
               i, static_cast<unsigned long long>(s->size()),
               static_cast<unsigned long long>(s->offset()),
               static_cast<unsigned long long>(segment_data_size));
  }
  const auto* entries = root->named_data();
  const uint32_t n = entries == nullptr ? 0 : entries->size();
  for (uint32_t i = 0; i < n; ++i) {
    const ft::NamedData* e = entries->Get(i);
    TE_BAD_PTD(e->key() != nullptr, "entry %u has no key", i);
    const char* key = e->key()->c_str();
    TE_BAD_PTD(e->segment_index() < num_segments, "'%s': segment %u out of range (%u segments)",
               key, e->segment_index(), num_segments);
    if (e->tensor_layout() != nullptr) {
      const uint64_t size = segments->Get(e->segment_index())->size();
      TE_RETURN_IF_ERROR(check_layout(e->tensor_layout(), size, key));
    }
  }
  return Error::Ok;
}

}  // namespace

FlatTensorDataMap::FlatTensorDataMap(FreeableBuffer&& flatbuffer, FreeableBuffer&& segments,
                                     const ft::FlatTensor* root, const char* description)
    : flatbuffer_(static_cast<FreeableBuffer&&>(flatbuffer)),
      segments_(static_cast<FreeableBuffer&&>(segments)),
      root_(root) {
  snprintf(description_, sizeof(description_), "%s", description);
}

FlatTensorDataMap::FlatTensorDataMap(FlatTensorDataMap&& other) noexcept
    : flatbuffer_(static_cast<FreeableBuffer&&>(other.flatbuffer_)),
      segments_(static_cast<FreeableBuffer&&>(other.segments_)),
      root_(other.root_) {
  memcpy(description_, other.description_, sizeof(description_));
}

Result<FlatTensorDataMap> FlatTensorDataMap::load(DataLoader* loader, const char* description) {
  TE_CHECK_OR_RETURN(loader != nullptr, Error::InvalidArgument, "null data loader");
  if (description == nullptr) description = "data file";
  TE_ASSIGN_OR_RETURN(size_t file_size, loader->size());
  Result<FlatTensorHeader> header = read_header(loader, file_size);
  if (!header.ok()) {
    prepend_error_context("%s", description);
    return header.error();
  }
  const size_t flatbuffer_end = header->flatbuffer_offset + header->flatbuffer_size;
  TE_ASSIGN_OR_RETURN(FreeableBuffer data, loader->load(0, flatbuffer_end));
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(data.data()), data.size(),
                                 /*max_depth=*/16, /*max_tables=*/10000000);
  TE_BAD_PTD(ft::VerifyFlatTensorBuffer(verifier),
             "%s: flatbuffer verification failed: the file's tables (%zu bytes) are corrupted "
             "or truncated", description, data.size());
  const ft::FlatTensor* root = ft::GetFlatTensor(data.data());
  Error checked = check_tables(root, header->segment_data_size);
  if (checked != Error::Ok) {
    prepend_error_context("%s", description);
    return checked;
  }
  // All segments in one load: one view of an mmapped file, shared by every
  // tensor and every program that uses this map.
  FreeableBuffer segments;
  if (header->segment_data_size > 0) {
    TE_ASSIGN_OR_RETURN(segments, loader->load(static_cast<size_t>(header->segment_base_offset),
                                               static_cast<size_t>(header->segment_data_size)));
  }
  return FlatTensorDataMap(static_cast<FreeableBuffer&&>(data),
                           static_cast<FreeableBuffer&&>(segments), root, description);
}

Result<NamedTensor> FlatTensorDataMap::get(const char* key, size_t key_size) const {
  const auto* entries = root_->named_data();
  const uint32_t n = entries == nullptr ? 0 : entries->size();
  for (uint32_t i = 0; i < n; ++i) {
    const ft::NamedData* e = entries->Get(i);
    if (e->key()->size() != key_size || memcmp(e->key()->data(), key, key_size) != 0) continue;
    const ft::DataSegment* s = root_->segments()->Get(e->segment_index());
    NamedTensor out;
    out.source = description_;
    out.data = Span<const uint8_t>(
        static_cast<const uint8_t*>(segments_.data()) + s->offset(), static_cast<size_t>(s->size()));
    const ft::TensorLayout* layout = e->tensor_layout();
    if (layout != nullptr) {
      out.has_layout = true;
      out.dtype = static_cast<ScalarType>(layout->scalar_type());
      if (layout->sizes() != nullptr) {
        out.sizes = Span<const int32_t>(layout->sizes()->data(), layout->sizes()->size());
      }
      if (layout->dim_order() != nullptr) {
        out.dim_order = Span<const uint8_t>(layout->dim_order()->data(), layout->dim_order()->size());
      }
    }
    return out;
  }
  record_error_message("no tensor named '%.*s' in %s (%u entries)", static_cast<int>(key_size), key,
                       description_, n);
  return Error::NotFound;
}

size_t FlatTensorDataMap::num_keys() const {
  return root_->named_data() == nullptr ? 0 : root_->named_data()->size();
}

Result<const char*> FlatTensorDataMap::key(size_t index) const {
  TE_CHECK_OR_RETURN(index < num_keys(), Error::InvalidArgument, "key %zu out of range (%zu keys)",
                     index, num_keys());
  return root_->named_data()->Get(static_cast<uint32_t>(index))->key()->c_str();
}

Span<const uint8_t> FlatTensorDataMap::segment_data() const {
  return Span<const uint8_t>(static_cast<const uint8_t*>(segments_.data()), segments_.size());
}

}  // namespace torchedge
