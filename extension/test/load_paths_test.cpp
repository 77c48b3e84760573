// Every way of bringing a program in serves its data at the alignment the
// optimized kernels read prepacked weights with (else they repack on every
// call: a program loaded from bytes ran up to 2.3x slower than from a file),
// and every way runs the exported test models to bit-identical outputs.
// The speed itself is compared by the benchmark's load-path configurations.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/module/module.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

constexpr size_t kAlign = BufferDataLoader::kBufferLoadAlignment;

// `size` bytes of a pattern, `misalignment` bytes past a kAlign boundary.
struct MisalignedBytes {
  MisalignedBytes(const std::vector<char>& contents, size_t misalignment)
      : storage(contents.size() + kAlign + misalignment) {
    char* base = storage.data();
    while (reinterpret_cast<uintptr_t>(base) % kAlign != 0) ++base;
    data = base + misalignment;
    memcpy(data, contents.data(), contents.size());
  }
  std::vector<char> storage;
  char* data = nullptr;
};

TEST(LoadPathsTest, BufferLoaderServesAlignedRangesAtEveryMisalignment) {
  std::vector<char> contents(1000);
  for (size_t i = 0; i < contents.size(); ++i) contents[i] = static_cast<char>(i * 7 + 3);
  for (size_t misalignment = 0; misalignment < kAlign; ++misalignment) {
    MisalignedBytes bytes(contents, misalignment);
    BufferDataLoader loader(bytes.data, contents.size());
    for (size_t offset : {size_t{0}, size_t{64}, size_t{128}, size_t{999}}) {
      const size_t size = contents.size() - offset;
      Result<FreeableBuffer> range = loader.load(offset, size);
      ASSERT_TRUE(range.ok()) << last_error_message();
      const void* p = range->data();
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kAlign, 0u) << misalignment << " " << offset;
      EXPECT_EQ(memcmp(p, contents.data() + offset, size), 0);
      // Aligned ranges are served in place (no copy); only misaligned ones are copied.
      const bool in_place = (misalignment + offset) % kAlign == 0;
      EXPECT_EQ(p == bytes.data + offset, in_place) << misalignment << " " << offset;
    }
  }
}

TEST(LoadPathsTest, BufferLoaderRejectsRangesOutsideTheBuffer) {
  std::vector<char> contents(100, 1);
  BufferDataLoader loader(contents.data(), contents.size());
  EXPECT_EQ(loader.load(90, 11).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(101, 0).error(), Error::InvalidArgument);
  EXPECT_EQ(loader.load(size_t{1} << 62, size_t{1} << 62).error(), Error::InvalidArgument);
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Every method run once, its inputs filled with a fixed pattern; the outputs' bytes.
std::vector<std::vector<char>> run_all_methods(Module& module, std::string* failure) {
  std::vector<std::vector<char>> results;
  Result<std::vector<std::string>> names = module.method_names();
  if (!names.ok()) {
    *failure = last_error_message();
    return results;
  }
  for (const std::string& name : names.get()) {
    Result<MethodMeta> meta = module.method_meta(name);
    if (!meta.ok()) {
      *failure = name + ": " + last_error_message();
      return results;
    }
    std::vector<TensorBuffer> buffers;
    buffers.reserve(meta->num_inputs());
    std::vector<EValue> inputs;
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      TensorInfo info = meta->input_tensor_info(i).get();
      buffers.emplace_back(info.dtype, std::vector<int32_t>(info.sizes.begin(), info.sizes.end()));
      // A float pattern; other dtypes zero (valid indices, masks and ids).
      memset(buffers.back().data(), 0, buffers.back().nbytes());
      if (info.dtype == ScalarType::Float) {
        auto* values = static_cast<float*>(buffers.back().data());
        for (size_t k = 0; k < buffers.back().nbytes() / sizeof(float); ++k) {
          values[k] = static_cast<float>(k % 7) * 0.25f - 0.75f;
        }
      }
      inputs.emplace_back(&buffers.back().tensor());
    }
    Result<std::vector<EValue>> outputs = module.execute(name, inputs);
    if (!outputs.ok()) {
      *failure = name + ": " + last_error_message();
      return results;
    }
    for (const EValue& out : outputs.get()) {
      if (!out.is_tensor()) continue;
      const Tensor& t = out.to_tensor();
      const char* p = static_cast<const char*>(t.data());
      results.emplace_back(p, p + t.nbytes());
    }
  }
  return results;
}

// Models up to this size run at every misalignment below; larger ones (the
// Hugging Face test models, 12-480 MB, whose runs dominated extension_test)
// at 0 (served in place) and 33 (copied): the loader's handling of every
// misalignment is the same code for any program, and
// BufferLoaderServesAlignedRangesAtEveryMisalignment checks each one.
constexpr size_t kFullSweepMaxBytes = size_t{4} << 20;

TEST(LoadPathsTest, EveryLoadPathRunsTheExportedModelsIdentically) {
  const char* dir = getenv("TORCHEDGE_TEST_MODELS");
  ASSERT_NE(dir, nullptr) << "set TORCHEDGE_TEST_MODELS (make test does)";
  DIR* d = opendir(dir);
  ASSERT_NE(d, nullptr) << dir;
  size_t models = 0;
  while (dirent* entry = readdir(d)) {
    const std::string file = entry->d_name;
    if (file.size() < 4 || file.substr(file.size() - 4) != ".pte") continue;
    const std::string path = std::string(dir) + "/" + file;
    std::string failure;
    Module mmapped(path);
    const std::vector<std::vector<char>> expected = run_all_methods(mmapped, &failure);
    ASSERT_EQ(failure, "") << file;

    const std::vector<char> contents = read_file(path);
    ModuleOptions read_whole;
    read_whole.load_mode = LoadMode::File;
    Module read(path, read_whole);
    EXPECT_EQ(run_all_methods(read, &failure), expected) << file << " (file)";
    const std::vector<size_t> misalignments = contents.size() <= kFullSweepMaxBytes
                                                  ? std::vector<size_t>{0, 8, 16, 33}
                                                  : std::vector<size_t>{0, 33};
    for (size_t misalignment : misalignments) {
      MisalignedBytes bytes(contents, misalignment);
      Module copied(bytes.data, contents.size());
      EXPECT_EQ(run_all_methods(copied, &failure), expected) << file << " (bytes +" << misalignment << ")";
      Module borrowed(std::make_unique<BufferDataLoader>(bytes.data, contents.size()));
      EXPECT_EQ(run_all_methods(borrowed, &failure), expected) << file << " (buffer +" << misalignment << ")";
      EXPECT_EQ(failure, "") << file;
    }
    ++models;
  }
  closedir(d);
  EXPECT_GE(models, 3u) << "expected the exported test models in " << dir;
}

}  // namespace
}  // namespace torchedge
