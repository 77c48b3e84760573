// torchedge/kernels/optimized/threadpool/work_pool.h
//
// The workers behind parallel_for (threadpool.h). One job at a time: its
// items are claimed one by one from a shared counter by the caller and by
// whichever workers are awake, and the caller waits only for items that a
// thread has claimed and not finished. A worker the OS has not scheduled
// (a loaded machine, a phone's little core asleep) claims nothing and so
// delays nothing: the caller runs the items itself. pthreadpool, which the
// kernels used before, hands each thread a range up front and then waits
// for every thread to check in, so one descheduled worker stalled every
// parallel region for a scheduler quantum (~4-7 ms measured on a 2-vCPU
// host at load 7-10, per region, against regions of tens of microseconds).
//
// A second caller while a job runs (two methods executing concurrently on
// one pool) is refused at once (try_run returns false) and runs its items
// on its own thread instead of queueing behind the first.
//
// Workers spin briefly after a job (a model's kernels come back to back),
// then sleep on a condition variable. No heap allocation but the pool
// itself and its threads (create()).
//
// Thread-safety: try_run() may be called from any thread; the destructor
// must not race with try_run().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <pthread.h>

namespace torchedge {

class WorkPool {
 public:
  using Task = void (*)(void* context, size_t item);

  /// A pool of `threads` threads in all: the caller and threads - 1
  /// workers. nullptr when a thread cannot be started.
  static WorkPool* create(size_t threads);
  ~WorkPool();

  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  /// Threads that can run a job's items at once (caller included).
  size_t threads() const { return workers_ + 1; }

  /// Runs task(context, i) for every i in [0, count) on the caller and the
  /// awake workers; returns when all have finished. Returns false, having
  /// run nothing, when another caller's job is in progress.
  bool try_run(Task task, void* context, size_t count);

 private:
  WorkPool() = default;
  static void* worker_main(void* self);
  void work();
  // Claims and runs items of the current job until none is left.
  void drain();

  // The job: written by the caller before it publishes the job in claim_;
  // atomics because a late worker may read them while the next job's
  // caller writes them (its claim then fails and it reads again).
  std::atomic<Task> task_{nullptr};
  std::atomic<void*> context_{nullptr};
  std::atomic<uint32_t> count_{0};
  // High 32 bits: the job's number; low 32: the next unclaimed item.
  std::atomic<uint64_t> claim_{0};
  std::atomic<uint32_t> done_{0};  // items of the current job finished

  std::mutex submit_;  // held by the caller of the job in progress

  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<uint32_t> sleepers_{0};
  std::atomic<bool> stop_{false};

  static constexpr size_t kMaxWorkers = 255;
  pthread_t threads_[kMaxWorkers] = {};
  size_t workers_ = 0;
};

}  // namespace torchedge
