#include "extension/module/data_file.h"

#include "extension/data_loader/file_data_loader.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/module/module.h"
#include "runtime/core/error_message.h"

namespace torchedge {

namespace {
Result<std::unique_ptr<DataLoader>> open_loader(const std::string& path, LoadMode mode) {
  if (mode == LoadMode::Mmap) {
    Result<MmapDataLoader> loader = MmapDataLoader::open(path.c_str());
    if (!loader.ok()) return loader.error();
    return std::unique_ptr<DataLoader>(new MmapDataLoader(std::move(loader.get())));
  }
  Result<FileDataLoader> loader = FileDataLoader::open(path.c_str());
  if (!loader.ok()) return loader.error();
  return std::unique_ptr<DataLoader>(new FileDataLoader(std::move(loader.get())));
}
}  // namespace

Result<std::shared_ptr<DataFile>> DataFile::open(const std::string& path, LoadMode mode) {
  TE_ASSIGN_OR_RETURN(std::unique_ptr<DataLoader> loader, open_loader(path, mode));
  // The map keeps the name for its messages; the basename is what users
  // recognise, the full path is in the open error if the file is missing.
  const size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(loader.get(), name.c_str());
  if (!map.ok()) return map.error();
  return std::make_shared<DataFile>(std::move(loader), std::move(map.get()));
}

}  // namespace torchedge
