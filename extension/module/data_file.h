// torchedge/extension/module/data_file.h
//
// DataFile: one .ptd file opened for a Module, owning its DataLoader and the
// FlatTensorDataMap over it. Hold it in a shared_ptr and give it to several
// Modules to have their programs read one mapping of the weights (two task
// heads over one frozen backbone):
//
//   auto backbone = torchedge::DataFile::open("backbone.ptd");
//   torchedge::Module a("head_a.pte", {backbone.get()});
//   torchedge::Module b("head_b.pte", {backbone.get()});
//
// With LoadMode::Mmap the file is mapped once, read-only, and every method
// of every program points into that mapping; with LoadMode::File it is read
// into memory once. Immutable after open(); shareable across threads.
#pragma once

#include <memory>
#include <string>

#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "runtime/executor/data_loader.h"

namespace torchedge {

enum class LoadMode;

class DataFile final : public NamedDataMap {
 public:
  /// Opens and verifies `path` (see FlatTensorDataMap::load). Errors are
  /// prefixed with the path.
  static Result<std::shared_ptr<DataFile>> open(const std::string& path, LoadMode mode);

  Result<NamedTensor> get(const char* key, size_t key_size) const override {
    return map_.get(key, key_size);
  }
  size_t num_keys() const override { return map_.num_keys(); }
  Result<const char*> key(size_t index) const override { return map_.key(index); }
  const char* description() const override { return map_.description(); }
  /// The loaded segment data (for tests that check where tensors point).
  Span<const uint8_t> segment_data() const { return map_.segment_data(); }

  DataFile(std::unique_ptr<DataLoader> loader, FlatTensorDataMap&& map)
      : loader_(std::move(loader)), map_(std::move(map)) {}

 private:
  std::unique_ptr<DataLoader> loader_;  // declared first: outlives the map
  FlatTensorDataMap map_;
};

}  // namespace torchedge
