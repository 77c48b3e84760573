// torchedge/runtime/executor/named_data_map.h
//
// NamedDataMap: tensors a program keeps outside its .pte, found by name.
//
// A program exported with external data (to_pte(external_data=...)) writes
// its weights into a .ptd file and marks each such tensor value with
// ExtraTensorInfo{fully_qualified_name, location = EXTERNAL}. At
// Program::load_method the runtime asks a NamedDataMap for each name, checks
// the stored layout against the tensor the program declares (dtype, sizes,
// dim order, byte count) and points the tensor at the map's bytes in place:
// nothing is copied, so two programs loaded with one map read one copy of
// the weights.
//
// Implementations: FlatTensorDataMap (extension/flat_tensor, the .ptd
// reader) and MergedDataMap (several maps searched in order).
//
// Contract for implementations: get() returns bytes that stay valid and
// unchanged for as long as the map lives, aligned to at least 16 bytes;
// every span in a returned NamedTensor points into the map as well. A map
// is immutable after it is created and safe to share across threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace torchedge {

/// One entry of a NamedDataMap. `has_layout` is false for opaque data (no
/// dtype or shape recorded); `data` then is all the map knows.
struct NamedTensor {
  bool has_layout = false;
  ScalarType dtype = ScalarType::Byte;
  Span<const int32_t> sizes;
  Span<const uint8_t> dim_order;
  Span<const uint8_t> data;  // the stored bytes, valid while the map lives
  const char* source = "";   // the file it came from (NamedDataMap::description())
};

class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;

  /// The entry named `key` (not necessarily NUL-terminated: `key_size`
  /// bytes). NotFound, with a message naming the key, when absent.
  virtual Result<NamedTensor> get(const char* key, size_t key_size) const = 0;

  /// Number of entries and the name of entry `index` (< num_keys()), for
  /// error messages and tools. The returned pointer lives as long as the
  /// map and is NUL-terminated.
  virtual size_t num_keys() const = 0;
  virtual Result<const char*> key(size_t index) const = 0;

  /// A short name for messages ("model.ptd"); never null.
  virtual const char* description() const = 0;
};

}  // namespace torchedge
