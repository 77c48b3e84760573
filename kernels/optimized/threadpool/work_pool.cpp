#include "kernels/optimized/threadpool/work_pool.h"

#include <new>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TE_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define TE_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define TE_CPU_RELAX() ((void)0)
#endif

namespace torchedge {
namespace {

// How long an idle worker polls for the next job before it sleeps: about
// 20-50 us of pause instructions, longer than the gap between two kernels
// of a model, short enough not to burn a loaded machine's cores.
constexpr int kSpinIterations = 2000;

// The next-item half of a finished job's claim while the next job is set up.
constexpr uint32_t kClosed = UINT32_MAX;

uint64_t job_of(uint64_t claim) { return claim >> 32; }
uint32_t item_of(uint64_t claim) { return static_cast<uint32_t>(claim); }

}  // namespace

WorkPool* WorkPool::create(size_t threads) {
  WorkPool* pool = new (std::nothrow) WorkPool();
  if (pool == nullptr) return nullptr;
  const size_t want = threads > 1 ? threads - 1 : 0;
  while (pool->workers_ < want && pool->workers_ < kMaxWorkers) {
    if (pthread_create(&pool->threads_[pool->workers_], nullptr, &WorkPool::worker_main, pool) != 0) {
      delete pool;  // joins the ones started
      return nullptr;
    }
    ++pool->workers_;
  }
  return pool;
}

WorkPool::~WorkPool() {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  for (size_t i = 0; i < workers_; ++i) pthread_join(threads_[i], nullptr);
}

void* WorkPool::worker_main(void* self) {
  static_cast<WorkPool*>(self)->work();
  return nullptr;
}

// Why a claim is safe: a thread runs item i of job j only after its
// compare-exchange moved claim_ from (j, i) to (j, i + 1) with i below the
// count it read. Before the next job's caller writes the job's fields it
// closes the finished job by storing (j, kClosed), so a thread that read a
// stale (j, i), or the next job's count against the old claim, fails its
// exchange (claim_ never returns to an earlier value; the count and the
// claim are sequentially consistent, so a thread that saw the new count sees
// the closed claim). A successful claim keeps its job's caller waiting, so
// the job's fields stay put until done_ counts the item.
void WorkPool::drain() {
  uint64_t claim = claim_.load(std::memory_order_seq_cst);
  for (;;) {
    const uint32_t count = count_.load(std::memory_order_seq_cst);
    if (item_of(claim) >= count) return;
    if (!claim_.compare_exchange_weak(claim, claim + 1, std::memory_order_seq_cst)) {
      continue;  // another thread claimed it, or a new job began: look again
    }
    task_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed),
                                          item_of(claim));
    done_.fetch_add(1, std::memory_order_release);
    claim = claim_.load(std::memory_order_seq_cst);
  }
}

void WorkPool::work() {
  uint64_t seen_job = 0;
  for (;;) {
    // Wait for a job newer than the last one seen: spin, then sleep.
    uint64_t claim = claim_.load(std::memory_order_acquire);
    for (int spin = 0; job_of(claim) == seen_job && spin < kSpinIterations; ++spin) {
      TE_CPU_RELAX();
      claim = claim_.load(std::memory_order_acquire);
    }
    if (job_of(claim) == seen_job) {
      std::unique_lock<std::mutex> lock(sleep_mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] {
        return stop_.load(std::memory_order_acquire) ||
               job_of(claim_.load(std::memory_order_acquire)) != seen_job;
      });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen_job = job_of(claim_.load(std::memory_order_acquire));
    drain();
  }
}

bool WorkPool::try_run(Task task, void* context, size_t count) {
  if (count == 0) return true;
  if (count >= kClosed || !submit_.try_lock()) return false;
  const uint64_t job = job_of(claim_.load(std::memory_order_relaxed));
  claim_.store((job << 32) | kClosed, std::memory_order_seq_cst);
  task_.store(task, std::memory_order_relaxed);
  context_.store(context, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  count_.store(static_cast<uint32_t>(count), std::memory_order_seq_cst);
  claim_.store((job + 1) << 32, std::memory_order_seq_cst);  // publishes the fields above
  if (sleepers_.load(std::memory_order_seq_cst) != 0) {
    // Taking the mutex orders this wake after a sleeper's check of claim_.
    // A worker that holds it (about to sleep, or just woken) and is
    // descheduled is not waited for: without the mutex a worker between its
    // check and its wait can miss this wake, which costs only its help with
    // this job (drain() below runs every item nobody claimed; the next job
    // wakes it).
    if (sleep_mutex_.try_lock()) sleep_mutex_.unlock();
    wake_.notify_all();
  }
  drain();
  // Only items some thread has claimed remain: wait for those.
  while (done_.load(std::memory_order_acquire) != count) TE_CPU_RELAX();
  submit_.unlock();
  return true;
}

}  // namespace torchedge
