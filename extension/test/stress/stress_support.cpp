#include "extension/test/stress/stress_support.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "schema/program_generated.h"

namespace torchedge {
namespace stress {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kSlackBytes = 64;  // XNNPACK may read 16 bytes past an input

void add_models_in(const char* dir, size_t max_bytes, std::vector<ModelFile>* out) {
  if (dir == nullptr) return;
  DIR* d = opendir(dir);
  if (d == nullptr) return;
  while (dirent* entry = readdir(d)) {
    const std::string file = entry->d_name;
    if (file.size() < 4 || file.substr(file.size() - 4) != ".pte") continue;
    const std::string path = std::string(dir) + "/" + file;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    const size_t bytes = static_cast<size_t>(st.st_size);
    if (max_bytes != 0 && bytes > max_bytes) continue;
    out->push_back({file, path, bytes});
  }
  closedir(d);
}

}  // namespace

std::vector<ModelFile> test_models(size_t max_bytes) {
  std::vector<ModelFile> models;
  add_models_in(getenv("TORCHEDGE_TEST_MODELS"), max_bytes, &models);
  add_models_in(TORCHEDGE_STRESS_MODELS_DIR, max_bytes, &models);
  std::sort(models.begin(), models.end(),
            [](const ModelFile& a, const ModelFile& b) { return a.name < b.name; });
  return models;
}

size_t env_size(const char* name, size_t fallback, bool zero_allowed) {
  const char* value = getenv(name);
  if (value == nullptr || *value < '0' || *value > '9') return fallback;
  const long long n = atoll(value);
  return n > 0 || (n == 0 && zero_allowed) ? static_cast<size_t>(n) : fallback;
}

uint8_t* MethodMemory::block(std::vector<std::unique_ptr<uint64_t[]>>* storage, size_t bytes) {
  const size_t words = (bytes + kSlackBytes + kAlignment) / 8 + 1;
  storage->emplace_back(new uint64_t[words]());
  const uintptr_t raw = reinterpret_cast<uintptr_t>(storage->back().get());
  return reinterpret_cast<uint8_t*>((raw + kAlignment - 1) & ~uintptr_t{kAlignment - 1});
}

MethodMemory::MethodMemory(size_t method_bytes, const std::vector<size_t>& planned,
                           size_t temp_bytes)
    : method_allocator_(block(&storage_, method_bytes), method_bytes),
      temp_allocator_(block(&storage_, temp_bytes), temp_bytes) {
  for (size_t size : planned) arenas_.emplace_back(block(&storage_, size), size);
  planned_ = PlannedMemory({arenas_.data(), arenas_.size()}, /*zero_filled=*/true);
  manager_ = MemoryManager{&method_allocator_, &planned_, &temp_allocator_};
}

size_t method_bytes_of(const MethodMeta& meta, size_t delegate_reserve) {
  return meta.method_allocator_bytes() + meta.num_delegates() * delegate_reserve;
}

std::vector<size_t> planned_sizes_of(const MethodMeta& meta) {
  std::vector<size_t> sizes;
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    Result<size_t> size = meta.planned_buffer_size(i);
    sizes.push_back(size.ok() ? size.get() : 0);
  }
  return sizes;
}

Inputs::Inputs(const MethodMeta& meta) {
  uint32_t state = 12345;
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    const int tag = meta.input_tag(i).ok() ? meta.input_tag(i).get() : 0;
    if (tag == static_cast<int>(executorch_flatbuffer::KernelTypes::Bool)) {
      values_.emplace_back(false);
      continue;
    }
    if (tag == static_cast<int>(executorch_flatbuffer::KernelTypes::Double)) {
      values_.emplace_back(0.0);
      continue;
    }
    if (tag != static_cast<int>(executorch_flatbuffer::KernelTypes::Tensor)) {
      values_.emplace_back(int64_t{0});
      continue;
    }
    const TensorInfo info = meta.input_tensor_info(i).get();
    tensors_.push_back(std::make_unique<TensorBuffer>(
        info.dtype, std::vector<int32_t>(info.sizes.begin(), info.sizes.end())));
    Tensor& t = tensors_.back()->tensor();
    if (info.dtype == ScalarType::Float) {
      float* data = t.mutable_data_as<float>();
      for (size_t k = 0; k < t.numel(); ++k) {
        state = state * 1664525u + 1013904223u;
        data[k] = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
      }
    }
    values_.emplace_back(&t);
  }
}

Error Inputs::set(Method& method) {
  return method.set_inputs({values_.data(), values_.size()});
}

std::vector<uint8_t> output_bytes(const Method& method) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    Result<const EValue*> out = method.output(i);
    if (!out.ok()) continue;
    const EValue& v = *out.get();
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      const uint8_t* data = static_cast<const uint8_t*>(t.data());
      bytes.insert(bytes.end(), data, data + t.nbytes());
    } else {
      bytes.push_back(static_cast<uint8_t>(v.tag()));  // scalars: the kind only
    }
  }
  return bytes;
}

}  // namespace stress
}  // namespace torchedge
