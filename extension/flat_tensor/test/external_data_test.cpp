// Programs whose weights live in a .ptd: load_method resolves them by name
// from a NamedDataMap, in place, and refuses a missing file, a missing key,
// or an entry whose dtype, shape or size differs from the program's tensor.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "extension/flat_tensor/test/test_ptd.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/test_program.h"

namespace torchedge {
namespace {

using testing::build_external_weight_program;
using testing::build_ptd;
using testing::float_entry;

// An aligned copy of a file image and a loader over it.
struct Image {
  explicit Image(const std::vector<uint8_t>& bytes)
      : storage(bytes.size() / 8 + 1), loader(storage.data(), bytes.size()) {
    memcpy(storage.data(), bytes.data(), bytes.size());
  }
  std::vector<uint64_t> storage;
  BufferDataLoader loader;
};

// The memory one method of the test program needs.
struct Memory {
  Memory()
      : method_pool(2048),
        arena_pool(32),
        method_allocator(method_pool.data(), method_pool.size() * 8),
        arena(reinterpret_cast<uint8_t*>(arena_pool.data()), arena_pool.size() * 8),
        planned(Span<Span<uint8_t>>(&arena, 1)),
        memory{&method_allocator, &planned, nullptr} {}
  std::vector<uint64_t> method_pool;
  std::vector<uint64_t> arena_pool;
  MemoryAllocator method_allocator;
  Span<uint8_t> arena;
  PlannedMemory planned;
  MemoryManager memory;
};

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_kernels(); }
};

const float kWeights[6] = {1, 2, 3, 4, 5, 6};

Result<FlatTensorDataMap> load_map(Image& image) {
  return FlatTensorDataMap::load(&image.loader, "model.ptd");
}

TEST_F(ExternalData, RunsWithWeightsReadInPlace) {
  Image pte(build_external_weight_program("w"));
  Image ptd(build_ptd({float_entry("w", {2, 3}, {1, 2, 3, 4, 5, 6})}));
  Result<Program> program = Program::load(&pte.loader);
  ASSERT_TRUE(program.ok()) << last_error_message();
  Result<FlatTensorDataMap> data = load_map(ptd);
  ASSERT_TRUE(data.ok()) << last_error_message();
  Memory m;
  Result<Method> method = program->load_method("forward", &m.memory, nullptr, &data.get());
  ASSERT_TRUE(method.ok()) << last_error_message();
  const float x[6] = {1, 1, 2, 2, 3, 3};
  Tensor::SizesType sizes[2] = {2, 3};
  uint8_t order[2] = {0, 1};
  Tensor::SizesType strides[2] = {3, 1};
  Tensor input(ScalarType::Float, 2, sizes, order, strides, const_cast<float*>(x));
  ASSERT_EQ(method->set_input(0, EValue(&input)), Error::Ok) << last_error_message();
  ASSERT_EQ(method->execute(), Error::Ok) << last_error_message();
  const float* out = method->output(0).get()->to_tensor().data_as<float>();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], x[i] * kWeights[i] + x[i]);
  // The weight tensor (kernel argument 1 of instruction 0) points into the map.
  Span<EValue* const> args = method->instruction_info(0)->args;
  const void* w = args[1]->to_tensor().data();
  EXPECT_EQ(w, data->get("w", 1)->data.data());
}

TEST_F(ExternalData, TwoProgramsShareOneMapsBytes) {
  Image pte_a(build_external_weight_program("w"));
  Image pte_b(build_external_weight_program("w"));
  Image ptd(build_ptd({float_entry("w", {2, 3}, {1, 2, 3, 4, 5, 6})}));
  Result<FlatTensorDataMap> data = load_map(ptd);
  Result<Program> a = Program::load(&pte_a.loader);
  Result<Program> b = Program::load(&pte_b.loader);
  ASSERT_TRUE(data.ok() && a.ok() && b.ok());
  Memory ma, mb;
  Result<Method> fa = a->load_method("forward", &ma.memory, nullptr, &data.get());
  Result<Method> fb = b->load_method("forward", &mb.memory, nullptr, &data.get());
  ASSERT_TRUE(fa.ok() && fb.ok()) << last_error_message();
  EXPECT_EQ(fa->instruction_info(0)->args[1]->to_tensor().data(),
            fb->instruction_info(0)->args[1]->to_tensor().data());
}

TEST_F(ExternalData, TwoProgramsReadOneMappingOfAPtdFile) {
  std::vector<uint8_t> bytes = build_ptd({float_entry("w", {2, 3}, {1, 2, 3, 4, 5, 6})});
  char path[] = "/tmp/torchedge_ptd_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  Result<MmapDataLoader> loader = MmapDataLoader::open(path);
  ASSERT_TRUE(loader.ok()) << last_error_message();
  Result<FlatTensorDataMap> data = FlatTensorDataMap::load(&loader.get(), "shared.ptd");
  ASSERT_TRUE(data.ok()) << last_error_message();
  Image pte_a(build_external_weight_program("w"));
  Image pte_b(build_external_weight_program("w"));
  Result<Program> a = Program::load(&pte_a.loader);
  Result<Program> b = Program::load(&pte_b.loader);
  ASSERT_TRUE(a.ok() && b.ok());
  Memory ma, mb;
  Result<Method> fa = a->load_method("forward", &ma.memory, nullptr, &data.get());
  Result<Method> fb = b->load_method("forward", &mb.memory, nullptr, &data.get());
  ASSERT_TRUE(fa.ok() && fb.ok()) << last_error_message();
  const auto* wa = static_cast<const uint8_t*>(fa->instruction_info(0)->args[1]->to_tensor().data());
  const auto* wb = static_cast<const uint8_t*>(fb->instruction_info(0)->args[1]->to_tensor().data());
  // Both point at the same bytes of the one mapped segment view, not copies.
  const Span<const uint8_t> mapped = data->segment_data();
  EXPECT_EQ(wa, wb);
  EXPECT_GE(wa, mapped.data());
  EXPECT_LE(wa + 24, mapped.data() + mapped.size());
  EXPECT_EQ(reinterpret_cast<const float*>(wa)[5], 6.0f);
  unlink(path);
}

TEST_F(ExternalData, WithoutADataFileTheLoadNamesTheTensor) {
  Image pte(build_external_weight_program("encoder.weight"));
  Result<Program> program = Program::load(&pte.loader);
  ASSERT_TRUE(program.ok()) << last_error_message();
  Memory m;
  Result<Method> method = program->load_method("forward", &m.memory);
  EXPECT_EQ(method.error(), Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "'encoder.weight'"), nullptr) << last_error_message();
  EXPECT_NE(strstr(last_error_message(), "no data file was given"), nullptr);
}

TEST_F(ExternalData, MissingKeyIsNotFound) {
  Image pte(build_external_weight_program("encoder.weight"));
  Image ptd(build_ptd({float_entry("decoder.weight", {2, 3}, {1, 2, 3, 4, 5, 6})}));
  Result<Program> program = Program::load(&pte.loader);
  Result<FlatTensorDataMap> data = load_map(ptd);
  ASSERT_TRUE(program.ok() && data.ok());
  Memory m;
  Result<Method> method = program->load_method("forward", &m.memory, nullptr, &data.get());
  EXPECT_EQ(method.error(), Error::NotFound);
  EXPECT_NE(strstr(last_error_message(), "'encoder.weight'"), nullptr) << last_error_message();
  EXPECT_NE(strstr(last_error_message(), "model.ptd"), nullptr) << last_error_message();
}

TEST_F(ExternalData, WrongShapeOrDtypeIsRefusedShowingBoth) {
  Image pte(build_external_weight_program("w"));
  Result<Program> program = Program::load(&pte.loader);
  ASSERT_TRUE(program.ok());
  Image wrong_shape(build_ptd({float_entry("w", {3, 2}, {1, 2, 3, 4, 5, 6})}));
  Result<FlatTensorDataMap> data = load_map(wrong_shape);
  ASSERT_TRUE(data.ok());
  Memory m;
  EXPECT_EQ(program->load_method("forward", &m.memory, nullptr, &data.get()).error(),
            Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "is float32 [3, 2], the program expects float32 [2, 3]"),
            nullptr)
      << last_error_message();
  testing::PtdEntry ints = float_entry("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  ints.dtype = 3;  // int32, same byte size
  Image wrong_dtype(build_ptd({ints}));
  Result<FlatTensorDataMap> int_data = load_map(wrong_dtype);
  ASSERT_TRUE(int_data.ok());
  Memory m2;
  EXPECT_EQ(program->load_method("forward", &m2.memory, nullptr, &int_data.get()).error(),
            Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "is int32 [2, 3]"), nullptr) << last_error_message();
}

TEST_F(ExternalData, OpaqueEntryTooSmallIsRefused) {
  Image pte(build_external_weight_program("w"));
  testing::PtdEntry blob = float_entry("w", {}, {1, 2});
  blob.has_layout = false;
  Image ptd(build_ptd({blob}));
  Result<Program> program = Program::load(&pte.loader);
  Result<FlatTensorDataMap> data = load_map(ptd);
  ASSERT_TRUE(program.ok() && data.ok());
  Memory m;
  EXPECT_EQ(program->load_method("forward", &m.memory, nullptr, &data.get()).error(),
            Error::InvalidExternalData);
  EXPECT_NE(strstr(last_error_message(), "holds 8 bytes, the program needs 24"), nullptr)
      << last_error_message();
}

}  // namespace
}  // namespace torchedge
