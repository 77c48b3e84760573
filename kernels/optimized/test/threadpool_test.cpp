// The shared pool: settings, parallel_for coverage (every index exactly
// once, chunks respect the grain), nesting, and the ISA probe.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace {

struct ThreadsGuard {
  explicit ThreadsGuard(size_t n) { EXPECT_EQ(set_num_threads(n), Error::Ok); }
  ~ThreadsGuard() { EXPECT_EQ(set_num_threads(1), Error::Ok); }
};

TEST(Threadpool, SettingAndPool) {
  EXPECT_EQ(num_threads(), 1u);
  EXPECT_EQ(shared_threadpool(), nullptr);
  {
    ThreadsGuard guard(3);
    EXPECT_EQ(num_threads(), 3u);
    ASSERT_NE(shared_threadpool(), nullptr);
    EXPECT_EQ(pthreadpool_get_threads_count(shared_threadpool()), 3u);
  }
  EXPECT_EQ(set_num_threads(0), Error::Ok);  // read as 1
  EXPECT_EQ(num_threads(), 1u);
  EXPECT_EQ(set_num_threads(kMaxThreads + 1), Error::InvalidArgument);
  EXPECT_EQ(num_threads(), 1u);
}

TEST(Threadpool, AcquiredPoolOutlivesSetting) {
  pthreadpool_t held = nullptr;
  {
    ThreadsGuard guard(2);
    held = acquire_threadpool();
    ASSERT_NE(held, nullptr);
  }
  // The setting moved on; the holder's pool still works.
  EXPECT_EQ(pthreadpool_get_threads_count(held), 2u);
  release_threadpool(held);
}

void check_cover(int64_t begin, int64_t end, int64_t grain) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(end > begin ? end - begin : 0));
  std::atomic<int> short_chunks{0};
  parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    if (e - b < grain && e != end) short_chunks.fetch_add(1);
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i - begin)].fetch_add(1);
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_EQ(short_chunks.load(), 0);
}

TEST(Threadpool, ParallelForCoversRangeOnce) {
  for (size_t threads : {1, 2, 4}) {
    ThreadsGuard guard(threads);
    check_cover(0, 0, 1);
    check_cover(5, 6, 1);
    check_cover(0, 1000, 1);
    check_cover(-7, 993, 64);
    check_cover(3, 10, 100);
  }
}

TEST(Threadpool, NestedParallelForRunsInline) {
  ThreadsGuard guard(2);
  std::atomic<int64_t> sum{0};
  parallel_for(0, 8, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      parallel_for(0, 100, 1, [&](int64_t ib, int64_t ie) {
        for (int64_t j = ib; j < ie; ++j) sum.fetch_add(j);
      });
    }
  });
  EXPECT_EQ(sum.load(), 8 * 4950);
}

TEST(CpuFeatures, EnvironmentOnlyLowers) {
  using optimized::Isa;
  const Isa best = optimized::best_isa();
  EXPECT_LE(static_cast<int>(best), static_cast<int>(optimized::detected_isa()));
  const char* env = std::getenv("TORCHEDGE_ISA");
  if (env != nullptr && std::string(env) == "scalar") {
    EXPECT_EQ(best, Isa::kScalar);
  }
  EXPECT_STREQ(optimized::isa_name(Isa::kAvx2), "avx2");
}

// QEMU_CPU names the emulated core under qemu-aarch64 (the ARM64 ctest run
// sets it): cortex-a53 is plain NEON, max has dot-product and i8mm.
TEST(CpuFeatures, ArmLevelsFollowTheCpuAndTheEnvironment) {
  using optimized::ArmIsa;
  const ArmIsa best = optimized::best_arm_isa(), detected = optimized::detected_arm_isa();
  EXPECT_LE(static_cast<int>(best), static_cast<int>(detected));
#if defined(__aarch64__)
  EXPECT_GE(static_cast<int>(detected), static_cast<int>(ArmIsa::kNeon));
  const char* cpu = std::getenv("QEMU_CPU");
  if (cpu != nullptr && std::string(cpu) == "cortex-a53") {
    EXPECT_EQ(detected, ArmIsa::kNeon);
  }
  if (cpu != nullptr && std::string(cpu) == "max") {
    EXPECT_EQ(detected, ArmIsa::kI8mm);
  }
#else
  EXPECT_EQ(detected, ArmIsa::kNone);
#endif
  const char* env = std::getenv("TORCHEDGE_ISA");
  if (env != nullptr && std::string(env) == "scalar") {
    EXPECT_EQ(best, ArmIsa::kNone);
  }
  EXPECT_STREQ(optimized::arm_isa_name(ArmIsa::kDotProd), "dotprod");
}

}  // namespace
}  // namespace torchedge
