// Memory budgets from 0 bytes up to what each method needs, for every test
// program: the method allocator, each planned arena and the temp allocator.
// Below the need, loading (or, for the temp allocator, execution) fails
// with MemoryAllocationFailed and a message naming what ran out; from the
// need upward, loading succeeds and execution never fails.
//
// Programs: the exported test models and the checked-in delegated ones up
// to TORCHEDGE_EXHAUSTION_MAX_MODEL_BYTES (default 1 MiB, which keeps ctest
// near 15 s; 0 takes every one, the Hugging Face models too: minutes each).
// Sizes tried per budget: every size when the need is at most
// kEverySizeUpTo bytes; otherwise TORCHEDGE_EXHAUSTION_SIZES evenly spaced
// sizes (default 200) for programs up to 1 MiB and
// TORCHEDGE_EXHAUSTION_LARGE_SIZES (default 24) for larger ones, plus the
// eight sizes just below the need, the need itself and two above it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
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

constexpr size_t kEverySizeUpTo = 4096;
constexpr size_t kLargeProgramBytes = size_t{1} << 20;
constexpr size_t kDelegateReserve = size_t{16} << 20;
constexpr size_t kTempBytes = size_t{8} << 20;

struct Budgets {
  size_t method_bytes;
  std::vector<size_t> planned;
  size_t temp_bytes;
};

struct Outcome {
  Error load = Error::Ok;
  Error execute = Error::Ok;
  std::string message;
};

// Loads `name` within `budgets` and, when that works, runs it once.
Outcome attempt(const Program& program, const char* name, const Budgets& budgets) {
  Outcome outcome;
  MethodMemory memory(budgets.method_bytes, budgets.planned, budgets.temp_bytes);
  Result<Method> method = program.load_method(name, memory.manager());
  if (!method.ok()) {
    outcome.load = method.error();
    outcome.message = last_error_message();
    return outcome;
  }
  Inputs inputs(program.method_meta(name).get());
  outcome.execute = inputs.set(method.get());
  if (outcome.execute == Error::Ok) outcome.execute = method->execute();
  if (outcome.execute != Error::Ok) outcome.message = last_error_message();
  return outcome;
}

// The least size in [0, high] for which `works(size)` holds (it must hold
// at `high`), by bisection.
template <typename F>
size_t least_working(size_t high, const F& works) {
  size_t low = 0;  // invariant: works(high); the answer is in [low, high]
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (works(mid)) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high;
}

// Sizes below `need` to try: all of them when few, else `count` spread over
// [0, need) plus the eight just below it.
std::vector<size_t> sizes_below(size_t need, size_t count) {
  std::vector<size_t> sizes;
  if (need <= kEverySizeUpTo) {
    for (size_t s = 0; s < need; ++s) sizes.push_back(s);
    return sizes;
  }
  for (size_t i = 0; i < count; ++i) sizes.push_back(need / count * i);
  for (size_t d = 1; d <= 8; ++d) sizes.push_back(need - d);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

struct Sweep {
  size_t budgets = 0;  // sizes tried, all kinds
  size_t failures_checked = 0;
  size_t successes = 0;
};

bool names(const std::string& message, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (message.find(w) != std::string::npos) return true;
  }
  return false;
}

// One method of one program: the three budgets in turn, the others full.
void sweep_method(const Program& program, const char* name, size_t count, Sweep* sweep,
                  const std::string& where) {
  MethodMeta meta = program.method_meta(name).get();
  const Budgets full{stress::method_bytes_of(meta, kDelegateReserve),
                     stress::planned_sizes_of(meta), kTempBytes};
  const Outcome baseline = attempt(program, name, full);
  ASSERT_EQ(baseline.load, Error::Ok) << where << ": " << baseline.message;
  ASSERT_EQ(baseline.execute, Error::Ok) << where << ": " << baseline.message;

  // What loading needs and what one execution needs, checked on both sides.
  auto check = [&](const char* kind, size_t need, std::initializer_list<const char*> words,
                   bool at_execute, auto with_size) {
    for (size_t size : sizes_below(need, count)) {
      const Outcome o = attempt(program, name, with_size(size));
      ++sweep->budgets;
      const Error err = at_execute ? o.execute : o.load;
      EXPECT_TRUE(at_execute || o.load != Error::Ok)
          << where << ": " << kind << " of " << size << " bytes (need " << need << ") loaded";
      EXPECT_EQ(err, Error::MemoryAllocationFailed)
          << where << ": " << kind << " of " << size << " bytes: " << error_name(err) << ", "
          << o.message;
      EXPECT_TRUE(names(o.message, words))
          << where << ": " << kind << " of " << size << " bytes: the message does not say what "
          << "ran out: " << o.message;
      ++sweep->failures_checked;
    }
    for (size_t size : {need, need + 1, need + 64}) {
      const Outcome o = attempt(program, name, with_size(size));
      ++sweep->budgets;
      EXPECT_EQ(o.load, Error::Ok) << where << ": " << kind << " of " << size << ": " << o.message;
      EXPECT_EQ(o.execute, Error::Ok) << where << ": " << kind << " of " << size << " bytes "
                                      << "(loaded): " << o.message;
      ++sweep->successes;
    }
  };

  auto with_method = [&](size_t size) {
    Budgets b = full;
    b.method_bytes = size;
    return b;
  };
  const size_t method_need = least_working(full.method_bytes, [&](size_t size) {
    return attempt(program, name, with_method(size)).load == Error::Ok;
  });
  check("method allocator", method_need, {"method allocator"}, false, with_method);

  for (size_t arena = 0; arena < full.planned.size(); ++arena) {
    auto with_arena = [&](size_t size) {
      Budgets b = full;
      b.planned[arena] = size;
      return b;
    };
    check("planned arena", full.planned[arena], {"arena"}, false, with_arena);
  }

  auto with_temp = [&](size_t size) {
    Budgets b = full;
    b.temp_bytes = size;
    return b;
  };
  const size_t temp_need = least_working(full.temp_bytes, [&](size_t size) {
    const Outcome o = attempt(program, name, with_temp(size));
    return o.load == Error::Ok && o.execute == Error::Ok;
  });
  check("temp allocator", temp_need, {"temp allocator", "scratch"}, true, with_temp);
  printf("[ exhaustion ] %s: method allocator %zu, planned %zu arena(s), temp %zu bytes\n",
         where.c_str(), method_need, full.planned.size(), temp_need);
}

class ExhaustionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(register_kernel_library(KernelLibrary::Optimized), Error::Ok);
    ASSERT_EQ(register_xnnpack_backend(), Error::Ok);
    ASSERT_EQ(set_num_threads(1), Error::Ok);
  }
};

TEST_F(ExhaustionTest, EveryBudgetFailsCleanlyBelowTheNeedAndWorksFromIt) {
  const std::vector<ModelFile> files =
      stress::test_models(stress::env_size("TORCHEDGE_EXHAUSTION_MAX_MODEL_BYTES", kLargeProgramBytes,
                                           /*zero_allowed=*/true));
  ASSERT_GE(files.size(), 4u) << "set TORCHEDGE_TEST_MODELS (ctest does)";
  Sweep sweep;
  size_t methods = 0;
  for (const ModelFile& file : files) {
    const auto begin = std::chrono::steady_clock::now();
    Result<MmapDataLoader> loader = MmapDataLoader::open(file.path.c_str());
    ASSERT_TRUE(loader.ok()) << file.name;
    Result<Program> program = Program::load(&loader.get());
    ASSERT_TRUE(program.ok()) << file.name << ": " << last_error_message();
    const size_t count = file.bytes > kLargeProgramBytes
                             ? stress::env_size("TORCHEDGE_EXHAUSTION_LARGE_SIZES", 24)
                             : stress::env_size("TORCHEDGE_EXHAUSTION_SIZES", 200);
    for (size_t k = 0; k < program->num_methods(); ++k) {
      const char* name = program->method_name(k).get();
      sweep_method(program.get(), name, count, &sweep, file.name + " " + name);
      ++methods;
    }
    printf("[ exhaustion ] %s: %.1f s\n", file.name.c_str(),
           std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  printf("[ exhaustion ] %zu programs, %zu methods: %zu budgets tried, %zu clean failures, "
         "%zu loads that then executed\n",
         files.size(), methods, sweep.budgets, sweep.failures_checked, sweep.successes);
}

}  // namespace
}  // namespace torchedge
