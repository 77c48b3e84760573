#include "runtime/executor/merged_data_map.h"

#include <cstdio>

#include "runtime/core/error_message.h"

namespace torchedge {

Result<NamedTensor> MergedDataMap::get(const char* key, size_t key_size) const {
  for (const NamedDataMap* map : maps_) {
    Result<NamedTensor> found = map->get(key, key_size);
    if (found.ok() || found.error() != Error::NotFound) return found;
  }
  // Name every file searched: the usual cause is a missing --data file.
  char searched[200];
  size_t used = 0;
  searched[0] = '\0';
  for (size_t i = 0; i < maps_.size() && used < sizeof(searched); ++i) {
    int n = snprintf(searched + used, sizeof(searched) - used, "%s%s", i ? ", " : "",
                     maps_[i]->description());
    if (n > 0) used += static_cast<size_t>(n);
  }
  record_error_message("no tensor named '%.*s' in %s%s", static_cast<int>(key_size), key,
                       maps_.empty() ? "(no external data files were given)" : "",
                       searched);
  return Error::NotFound;
}

size_t MergedDataMap::num_keys() const {
  size_t n = 0;
  for (const NamedDataMap* map : maps_) n += map->num_keys();
  return n;
}

Result<const char*> MergedDataMap::key(size_t index) const {
  for (const NamedDataMap* map : maps_) {
    if (index < map->num_keys()) return map->key(index);
    index -= map->num_keys();
  }
  record_error_message("key index out of range");
  return Error::InvalidArgument;
}

}  // namespace torchedge
