// One Program shared by 16 threads, each running its own Method (and, in a
// second test, its own Module over the same file), on the optimized kernels
// and the XNNPACK delegate, then again sharing a 2-thread pool: every output
// must be bit-identical to a single-threaded run of the same execution.
//
// Programs: the exported test models up to 1 MiB
// (TORCHEDGE_STRESS_MAX_MODEL_BYTES raises the limit) and the checked-in
// XNNPACK-delegated ones (models/). Executions per thread and method:
// TORCHEDGE_STRESS_ITERATIONS (default 16) without a pool, an eighth of it
// on the shared pool (16 callers serialize on it; see docs/architecture.md),
// the same while the thread count changes. `make tsan` runs this file
// under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/module/module.h"
#include "extension/test/stress/stress_support.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

using stress::Inputs;
using stress::MethodMemory;
using stress::ModelFile;

constexpr size_t kThreads = 16;
constexpr size_t kDelegateReserve = size_t{16} << 20;
constexpr size_t kTempBytes = size_t{8} << 20;

size_t iterations() { return stress::env_size("TORCHEDGE_STRESS_ITERATIONS", 16); }
size_t pool_iterations() { return iterations() / 8 > 0 ? iterations() / 8 : 1; }

// The programs that exercise the pool hardest (threaded convolutions and
// GEMMs, the XNNPACK delegate on the pool, int8 and 4-bit linear layers that
// size per-thread scratch from the thread count).
bool uses_the_pool(const ModelFile& file) {
  for (const char* name : {"mlp_xnnpack.pte", "small_cnn.pte", "tiny_llm_8da4w.pte",
                           "tiny_llm_int8.pte", "transformer_block.pte"}) {
    if (file.name == name) return true;
  }
  return false;
}

std::vector<ModelFile> models() {
  return stress::test_models(stress::env_size("TORCHEDGE_STRESS_MAX_MODEL_BYTES", size_t{1} << 20));
}

double elapsed_ms(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
      .count();
}

// Releases every waiting thread at once, so loads and executions overlap.
class StartLine {
 public:
  explicit StartLine(size_t count) : waiting_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0) {
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return waiting_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t waiting_;
};

// What the threads report back (checked on the main thread: gtest's
// assertions are not meant for worker threads).
struct Tally {
  std::atomic<size_t> executions{0};
  std::atomic<size_t> mismatches{0};
  std::atomic<size_t> failures{0};
  std::mutex mutex;
  std::string first_failure;
  void fail(const std::string& what) {
    ++failures;
    std::lock_guard<std::mutex> lock(mutex);
    if (first_failure.empty()) first_failure = what;
  }
};

// Outputs of executions 0 .. n-1 of a fresh Method, on this thread alone.
// Execution i of every thread is compared with entry i (a method with state
// may change its outputs from run to run; each thread's Method is fresh too).
std::vector<std::vector<uint8_t>> reference_outputs(const Program& program, const char* method,
                                                    size_t n, std::string* failure) {
  std::vector<std::vector<uint8_t>> outputs;
  MethodMeta meta = program.method_meta(method).get();
  MethodMemory memory(stress::method_bytes_of(meta, kDelegateReserve),
                      stress::planned_sizes_of(meta), kTempBytes);
  Result<Method> m = program.load_method(method, memory.manager());
  if (!m.ok()) {
    *failure = std::string("load_method: ") + last_error_message();
    return outputs;
  }
  Inputs inputs(meta);
  for (size_t i = 0; i < n; ++i) {
    if (inputs.set(m.get()) != Error::Ok || m->execute() != Error::Ok) {
      *failure = std::string("execute: ") + last_error_message();
      return outputs;
    }
    outputs.push_back(stress::output_bytes(m.get()));
  }
  return outputs;
}

// Runs `method` n times and checks each execution against `reference`.
void run_and_compare(Method& method, Inputs& inputs,
                     const std::vector<std::vector<uint8_t>>& reference, Tally* tally) {
  for (size_t i = 0; i < reference.size(); ++i) {
    if (inputs.set(method) != Error::Ok || method.execute() != Error::Ok) {
      tally->fail(std::string("execute: ") + last_error_message());
      return;
    }
    ++tally->executions;
    if (stress::output_bytes(method) != reference[i]) ++tally->mismatches;
  }
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(register_kernel_library(KernelLibrary::Optimized), Error::Ok);
    ASSERT_EQ(register_xnnpack_backend(), Error::Ok);
  }
  void SetUp() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
  void TearDown() override { EXPECT_EQ(set_num_threads(1), Error::Ok); }
};

// Every method of every program in `files`: a single-threaded reference of
// `n` executions, then kThreads Methods of the one Program loading together
// and running `n` executions each. Returns the executions run.
size_t run_methods_of_shared_programs(const std::vector<ModelFile>& files, size_t n) {
  size_t delegated = 0, total = 0;
  for (const ModelFile& file : files) {
    Result<MmapDataLoader> loader = MmapDataLoader::open(file.path.c_str());
    EXPECT_TRUE(loader.ok()) << file.name;
    if (!loader.ok()) continue;
    Result<Program> program = Program::load(&loader.get());
    EXPECT_TRUE(program.ok()) << file.name << ": " << last_error_message();
    if (!program.ok()) continue;
    for (size_t k = 0; k < program->num_methods(); ++k) {
      const char* name = program->method_name(k).get();
      std::string failure;
      const auto reference = reference_outputs(program.get(), name, n, &failure);
      EXPECT_EQ(failure, "") << file.name << " " << name;
      if (!failure.empty()) continue;
      delegated += program->method_meta(name)->num_delegates() > 0;
      const auto begin = std::chrono::steady_clock::now();
      Tally tally;
      StartLine start(kThreads);
      std::vector<std::thread> threads;
      for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
          MethodMeta meta = program->method_meta(name).get();
          MethodMemory memory(stress::method_bytes_of(meta, kDelegateReserve),
                              stress::planned_sizes_of(meta), kTempBytes);
          Inputs inputs(meta);
          start.arrive_and_wait();  // the 16 loads overlap, then the executions
          Result<Method> method = program->load_method(name, memory.manager());
          if (!method.ok()) return tally.fail(std::string("load_method: ") + last_error_message());
          run_and_compare(method.get(), inputs, reference, &tally);
        });
      }
      for (std::thread& t : threads) t.join();
      EXPECT_EQ(tally.failures.load(), 0u) << file.name << " " << name << ": " << tally.first_failure;
      EXPECT_EQ(tally.mismatches.load(), 0u) << file.name << " " << name;
      EXPECT_EQ(tally.executions.load(), kThreads * n) << file.name << " " << name;
      total += tally.executions.load();
      printf("[ concurrency ] %s %s: %zu executions on %zu threads, %.0f ms\n", file.name.c_str(),
             name, tally.executions.load(), kThreads, elapsed_ms(begin));
    }
  }
  EXPECT_GE(delegated, 1u) << "expected XNNPACK-delegated programs";
  return total;
}

TEST_F(ConcurrencyTest, SixteenMethodsOfOneProgramMatchOneThread) {
  const std::vector<ModelFile> files = models();
  ASSERT_GE(files.size(), 4u) << "set TORCHEDGE_TEST_MODELS (ctest does)";
  const size_t total = run_methods_of_shared_programs(files, iterations());
  printf("[ concurrency ] %zu threads x %zu executions (%zu programs, no pool)\n", kThreads,
         total / kThreads, files.size());
}

TEST_F(ConcurrencyTest, SixteenMethodsSharingThePoolMatchOneThread) {
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  std::vector<ModelFile> files;
  for (const ModelFile& file : models()) {
    if (uses_the_pool(file)) files.push_back(file);
  }
  ASSERT_GE(files.size(), 4u);
  const size_t total = run_methods_of_shared_programs(files, pool_iterations());
  printf("[ concurrency ] %zu threads x %zu executions (%zu programs, 2-thread pool)\n", kThreads,
         total / kThreads, files.size());
}



TEST_F(ConcurrencyTest, SixteenModulesOverOneFileMatchOneThread) {
  const std::vector<ModelFile> files = models();
  ASSERT_GE(files.size(), 4u);
  size_t total = 0;
  for (const ModelFile& file : files) {
    Module reference_module(file.path);
    Result<std::vector<std::string>> names = reference_module.method_names();
    ASSERT_TRUE(names.ok()) << file.name;
    for (const std::string& name : names.get()) {
      Result<MmapDataLoader> loader = MmapDataLoader::open(file.path.c_str());
      Result<Program> program = Program::load(&loader.get());
      std::string failure;
      const auto reference =
          reference_outputs(program.get(), name.c_str(), iterations(), &failure);
      ASSERT_EQ(failure, "") << file.name << " " << name;
      Tally tally;
      StartLine start(kThreads);
      std::vector<std::thread> threads;
      for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
          start.arrive_and_wait();  // 16 Modules load (and register kernels) at once
          Module module(file.path);
          Result<Method*> method = module.method(name);
          if (!method.ok()) return tally.fail(std::string("load: ") + last_error_message());
          Inputs inputs(module.method_meta(name).get());
          run_and_compare(*method.get(), inputs, reference, &tally);
        });
      }
      for (std::thread& t : threads) t.join();
      EXPECT_EQ(tally.failures.load(), 0u) << file.name << " " << name << ": " << tally.first_failure;
      EXPECT_EQ(tally.mismatches.load(), 0u) << file.name << " " << name;
      total += tally.executions.load();
    }
  }
  printf("[ concurrency ] %zu threads x %zu executions through Modules\n", kThreads,
         total / kThreads);
}

// set_num_threads() while methods execute is rejected (InvalidState, naming
// the executions in flight) and leaves the setting alone; between runs it
// succeeds. Each execution matches a single-threaded run at one of the counts.
TEST_F(ConcurrencyTest, ThreadCountChangesDuringExecutionAreRejected) {
  constexpr size_t kCounts[] = {1, 2, 3, 4};
  const size_t n = pool_iterations();
  size_t programs = 0;
  for (const ModelFile& file : models()) {
    if (!uses_the_pool(file)) continue;
    ++programs;
    Result<MmapDataLoader> loader = MmapDataLoader::open(file.path.c_str());
    Result<Program> program = Program::load(&loader.get());
    ASSERT_TRUE(program.ok()) << file.name;
    const char* name = program->method_name(0).get();
    std::vector<std::vector<std::vector<uint8_t>>> references;
    for (size_t count : kCounts) {
      ASSERT_EQ(set_num_threads(count), Error::Ok);
      std::string failure;
      references.push_back(reference_outputs(program.get(), name, 1, &failure));
      ASSERT_EQ(failure, "") << file.name;
    }
    ASSERT_EQ(set_num_threads(2), Error::Ok);
    Tally tally;
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads / 2; ++t) {
      threads.emplace_back([&] {
        MethodMeta meta = program->method_meta(name).get();
        MethodMemory memory(stress::method_bytes_of(meta, kDelegateReserve),
                            stress::planned_sizes_of(meta), kTempBytes);
        Inputs inputs(meta);
        Result<Method> method = program->load_method(name, memory.manager());
        if (!method.ok()) return tally.fail(std::string("load_method: ") + last_error_message());
        for (size_t i = 0; i < n && !stop.load(); ++i) {
          if (inputs.set(method.get()) != Error::Ok || method->execute() != Error::Ok) {
            return tally.fail(std::string("execute: ") + last_error_message());
          }
          ++tally.executions;
          const std::vector<uint8_t> out = stress::output_bytes(method.get());
          bool matches = false;
          for (const auto& ref : references) matches = matches || out == ref[0];
          if (!matches) ++tally.mismatches;
        }
      });
    }
    size_t accepted = 0, rejected = 0, other = 0;
    std::string other_message;
    while (tally.executions.load() < kThreads / 2 * n && tally.failures.load() == 0) {
      for (size_t count : kCounts) {
        const Error err = set_num_threads(count);
        if (err == Error::Ok) {
          ++accepted;
        } else if (err == Error::InvalidState &&
                   std::string(last_error_message()).find("in flight") != std::string::npos) {
          ++rejected;
        } else {
          ++other;
          other_message = last_error_message();
        }
        EXPECT_GE(num_threads(), 1u);
      }
      std::this_thread::yield();
    }
    stop = true;
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(tally.failures.load(), 0u) << file.name << ": " << tally.first_failure;
    EXPECT_EQ(tally.mismatches.load(), 0u) << file.name;
    EXPECT_EQ(other, 0u) << file.name << ": " << other_message;
    EXPECT_GT(accepted + rejected, 0u);
    // Nothing runs now: the change is accepted.
    EXPECT_EQ(set_num_threads(3), Error::Ok);
    EXPECT_EQ(num_threads(), 3u);
    printf("[ threads ] %s: %zu changes rejected during execution, %zu accepted between runs\n",
           file.name.c_str(), rejected, accepted);
  }
  EXPECT_GE(programs, 4u);
}

}  // namespace
}  // namespace torchedge
