// Proves Method::execute() performs zero heap allocations: on the built-in
// test program and on every model exported by the Python test suite into
// $TORCHEDGE_TEST_MODELS (make test exports them before running ctest),
// with tracing off and with the ETDump tracer recording every instruction
// and capturing every intermediate into caller-provided buffers.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_tracer.h"
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

TEST(ZeroHeapTest, ExecuteOfTheTestProgramWithTracingOnDoesNotAllocate) {
  testing::register_test_kernels();
  const std::vector<uint8_t> bytes = testing::build_mul_add_program(true);
  std::vector<uint8_t> events(64 * ETDumpTracer::kRecordBytes);
  std::vector<uint8_t> debug(4096);
  ETDumpTracer tracer({events.data(), events.size()}, {debug.data(), debug.size()});
  ModuleOptions options;
  options.event_tracer = &tracer;
  Module module(bytes.data(), bytes.size(), options);
  std::string failure;
  EXPECT_EQ(allocations_during_execute(module, &failure), 0u);
  EXPECT_EQ(failure, "");
  // Both methods' instructions were timed and their outputs captured.
  size_t profiled = 0, captured = 0;
  for (size_t i = 0; i < tracer.num_events(); ++i) {
    const ETDumpTracer::Record& r = tracer.records()[i];
    profiled += r.type == ETDumpTracer::Record::Type::Profile && r.instruction >= 0;
    captured += r.type == ETDumpTracer::Record::Type::Debug;
  }
  EXPECT_EQ(profiled, 3u);  // forward: mul, add; double: add
  EXPECT_EQ(captured, 3u);
  EXPECT_GT(tracer.debug_bytes_used(), 0u);
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
    // Tracing on: every instruction timed, every output copied.
    std::vector<uint8_t> events(size_t{1} << 20);
    std::vector<uint8_t> debug(size_t{64} << 20);
    ETDumpTracer tracer({events.data(), events.size()}, {debug.data(), debug.size()});
    options.event_tracer = &tracer;
    Module traced(std::string(dir) + "/" + file, options);
    EXPECT_EQ(allocations_during_execute(traced, &failure), 0u) << file << " traced";
    EXPECT_EQ(failure, "") << file << " traced";
    EXPECT_GT(tracer.num_events(), 0u) << file;
    EXPECT_EQ(tracer.dropped_events(), 0u) << file;
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
