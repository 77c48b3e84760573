// The shared pool: settings, parallel_for coverage (every index exactly
// once, chunks respect the grain), nesting, and the ISA probe.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/threadpool/work_pool.h"

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

// WorkPool (work_pool.h): thousands of back-to-back jobs of every size (the
// claim protocol's races between a job's end and the next one's start), a
// concurrent caller refused rather than queued, workers that really take
// part, and a job that finishes while every worker is kept away.
TEST(WorkPool, BackToBackJobsRunEveryItemOnce) {
  for (size_t threads : {2, 3, 5}) {
    WorkPool* pool = WorkPool::create(threads);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->threads(), threads);
    std::vector<std::atomic<int>> hits(64);
    struct Job {
      std::vector<std::atomic<int>>* hits;
      static void run(void* self, size_t i) { (*static_cast<Job*>(self)->hits)[i].fetch_add(1); }
    } job{&hits};
    for (int round = 0; round < 3000; ++round) {
      const size_t count = static_cast<size_t>(round % 65);
      for (auto& h : hits) h.store(0);
      ASSERT_TRUE(pool->try_run(&Job::run, &job, count));
      for (size_t i = 0; i < hits.size(); ++i) {
        ASSERT_EQ(hits[i].load(), i < count ? 1 : 0) << "round " << round << " item " << i;
      }
    }
    delete pool;
  }
}

TEST(WorkPool, WorkersTakePartAndASecondCallerIsRefused) {
  WorkPool* pool = WorkPool::create(2);
  ASSERT_NE(pool, nullptr);
  // Item 0 holds its thread until item 1 has run on another one: only a
  // worker can run item 1 while the caller (or the worker) sits in item 0.
  struct Job {
    WorkPool* pool;
    std::atomic<bool> second_ran{false};
    std::atomic<int> refused{0};
    static void run(void* self, size_t i) {
      Job* job = static_cast<Job*>(self);
      if (i == 1) {
        // A nested caller's job while this one holds the pool: refused.
        job->refused += !job->pool->try_run([](void*, size_t) {}, nullptr, 1);
        job->second_ran = true;
        return;
      }
      while (!job->second_ran.load()) {
      }
    }
  } job;
  job.pool = pool;
  ASSERT_TRUE(pool->try_run(&Job::run, &job, 2));
  EXPECT_TRUE(job.second_ran.load());
  EXPECT_EQ(job.refused.load(), 1);
  delete pool;
}

// Every other thread of the process held in a signal handler stands for
// workers the OS has not scheduled: the job must finish on its caller
// alone (pthreadpool waited for every worker to check in, so this hung).
std::atomic<bool> g_hold{false};
std::atomic<int> g_held{0};
void hold_thread(int) {
  g_held.fetch_add(1);
  while (g_hold.load()) {
  }
  g_held.fetch_sub(1);
}

TEST(WorkPool, AJobFinishesWhileEveryWorkerIsDescheduled) {
  WorkPool* pool = WorkPool::create(3);
  ASSERT_NE(pool, nullptr);
  struct sigaction action = {}, old = {};
  action.sa_handler = &hold_thread;
  ASSERT_EQ(sigaction(SIGUSR1, &action, &old), 0);
  g_held = 0;  // a repeated run (--gtest_repeat) counts its own holds
  g_hold = true;
  int others = 0;
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(tasks)) {
      const pid_t tid = static_cast<pid_t>(atoi(entry->d_name));
      if (tid > 0 && tid != self) others += syscall(SYS_tgkill, getpid(), tid, SIGUSR1) == 0;
    }
    closedir(tasks);
  }
  ASSERT_GE(others, 2);  // the two workers at least
  while (g_held.load() < others) {
  }
  std::atomic<int> ran{0};
  struct Job {
    std::atomic<int>* ran;
    static void run(void* self, size_t) { static_cast<Job*>(self)->ran->fetch_add(1); }
  } job{&ran};
  for (int round = 0; round < 100; ++round) ASSERT_TRUE(pool->try_run(&Job::run, &job, 8));
  EXPECT_EQ(ran.load(), 800);
  g_hold = false;
  while (g_held.load() > 0) {  // every handler returned before the default action is back
  }
  sigaction(SIGUSR1, &old, nullptr);
  delete pool;
}

TEST(Threadpool, ConcurrentParallelForsBothFinish) {
  ThreadsGuard guard(2);
  std::atomic<int64_t> sums[2] = {{0}, {0}};
  auto work = [&](int which) {
    for (int round = 0; round < 200; ++round) {
      parallel_for(0, 1000, 10, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) sums[which].fetch_add(i);
      });
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  EXPECT_EQ(sums[0].load(), 200 * 499500);
  EXPECT_EQ(sums[1].load(), 200 * 499500);
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
