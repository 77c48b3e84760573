// Proves Method::execute() performs zero heap allocations: on the built-in
// test program and on every model exported by the Python test suite into
// $TORCHEDGE_TEST_MODELS (make test exports them before running ctest).
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "extension/module/module.h"
#include "extension/test/heap_counter.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/test/test_program.h"

namespace torchedge {
namespace {

using testing::HeapCounter;

// Runs execute() of every method of `module` with zero-filled inputs and
// returns the number of heap allocations seen inside execute().
size_t allocations_during_execute(Module& module, std::string* failure) {
  size_t total = 0;
  Result<std::vector<std::string>> names = module.method_names();
  if (!names.ok()) {
    *failure = last_error_message();
    return 0;
  }
  for (const std::string& name : names.get()) {
    Result<MethodMeta> meta = module.method_meta(name);
    Result<Method*> method = module.method(name);
    if (!meta.ok() || !method.ok()) {
      *failure = last_error_message();
      return 0;
    }
    std::vector<TensorBuffer> inputs;
    inputs.reserve(meta->num_inputs());
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      TensorInfo info = meta->input_tensor_info(i).get();
      inputs.emplace_back(info.dtype, std::vector<int32_t>(info.sizes.begin(), info.sizes.end()));
      EXPECT_EQ(method.get()->set_input(i, EValue(&inputs.back().tensor())), Error::Ok);
    }
    {
      HeapCounter counter;
      const Error err = method.get()->execute();
      total += counter.allocations();
      if (err != Error::Ok) *failure = name + ": " + last_error_message();
    }
  }
  return total;
}

TEST(ZeroHeapTest, ExecuteOfTheTestProgramDoesNotAllocate) {
  testing::register_test_kernels();
  const std::vector<uint8_t> bytes = testing::build_mul_add_program(true);
  Module module(bytes.data(), bytes.size());
  std::string failure;
  EXPECT_EQ(allocations_during_execute(module, &failure), 0u);
  EXPECT_EQ(failure, "");
}

TEST(ZeroHeapTest, CounterSeesAllocations) {
  HeapCounter counter;
  std::vector<int>* v = new std::vector<int>(100);
  delete v;
  EXPECT_GE(counter.allocations(), 2u);  // the test of the test
}

// Every exported model with the given kernel library and thread count
// (Module registers the optimized kernels by default).
void expect_exported_models_do_not_allocate(KernelLibrary kernels, size_t threads) {
  const char* dir = getenv("TORCHEDGE_TEST_MODELS");
  ASSERT_NE(dir, nullptr) << "set TORCHEDGE_TEST_MODELS (make test does)";
  ASSERT_EQ(set_num_threads(threads), Error::Ok);
  DIR* d = opendir(dir);
  ASSERT_NE(d, nullptr) << dir;
  size_t models = 0;
  while (dirent* entry = readdir(d)) {
    const std::string file = entry->d_name;
    if (file.size() < 4 || file.substr(file.size() - 4) != ".pte") continue;
    ModuleOptions options;
    options.kernels = kernels;
    Module module(std::string(dir) + "/" + file, options);
    std::string failure;
    EXPECT_EQ(allocations_during_execute(module, &failure), 0u) << file << ", threads " << threads;
    EXPECT_EQ(failure, "") << file;
    ++models;
  }
  closedir(d);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
  EXPECT_GE(models, 3u) << "expected the exported test models in " << dir;
}

TEST(ZeroHeapTest, ExecuteOfExportedModelsDoesNotAllocate) {
  expect_exported_models_do_not_allocate(KernelLibrary::Optimized, 1);
  expect_exported_models_do_not_allocate(KernelLibrary::Portable, 1);
}

TEST(ZeroHeapTest, ExecuteOnTwoThreadsDoesNotAllocate) {
  expect_exported_models_do_not_allocate(KernelLibrary::Optimized, 2);
}

}  // namespace
}  // namespace torchedge
