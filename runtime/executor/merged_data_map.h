// torchedge/runtime/executor/merged_data_map.h
//
// MergedDataMap: several NamedDataMaps (one per .ptd file) seen as one, so a
// program can take its weights from more than one file (a shared backbone's
// .ptd plus a task head's). get() searches the maps in the order given and
// returns the first match: a key present in two files resolves to the
// earlier one.
//
// Ownership: borrows the array of maps and every map in it; all must
// outlive the MergedDataMap and anything loaded with it. No heap.
#pragma once

#include "runtime/executor/named_data_map.h"

namespace torchedge {

class MergedDataMap final : public NamedDataMap {
 public:
  explicit MergedDataMap(Span<const NamedDataMap* const> maps) : maps_(maps) {}

  /// NotFound naming the key and the files searched when no map has it.
  Result<NamedTensor> get(const char* key, size_t key_size) const override;
  size_t num_keys() const override;
  Result<const char*> key(size_t index) const override;
  const char* description() const override { return "the external data files"; }

 private:
  Span<const NamedDataMap* const> maps_;
};

}  // namespace torchedge
