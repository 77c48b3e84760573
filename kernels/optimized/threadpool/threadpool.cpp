#include "kernels/optimized/threadpool/threadpool.h"

#include <mutex>

#include "runtime/core/error_message.h"
#include "runtime/core/execution_gate.h"

// pthreadpool comes uninstrumented from Debian, so ThreadSanitizer cannot
// see that handing a task to the workers and waiting for them orders memory;
// these annotations state the edges pthreadpool provides (make tsan).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TORCHEDGE_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define TORCHEDGE_TSAN 1
#endif
#if defined(TORCHEDGE_TSAN)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define TE_TSAN_ACQUIRE(p) __tsan_acquire(p)
#define TE_TSAN_RELEASE(p) __tsan_release(p)
#else
#define TE_TSAN_ACQUIRE(p) (void)(p)
#define TE_TSAN_RELEASE(p) (void)(p)
#endif

namespace torchedge {
namespace {

// A pool stays alive while the setting names it or a holder (a delegate, a
// running parallel_for) has acquired it. A few distinct pools alive at once
// is plenty, so a fixed table keeps this file free of heap containers.
struct PoolSlot {
  pthreadpool_t pool = nullptr;
  size_t users = 0;
};
constexpr size_t kMaxPools = 8;

std::mutex g_mutex;
size_t g_threads = 1;
pthreadpool_t g_current = nullptr;  // the setting's pool (nullptr for 1 thread)
PoolSlot g_slots[kMaxPools];

thread_local bool t_in_parallel_region = false;

PoolSlot* slot_of(pthreadpool_t pool) {
  for (PoolSlot& s : g_slots) {
    if (s.pool == pool) return &s;
  }
  return nullptr;
}

// Drops one user of `pool`; destroys it when none remain. Caller holds g_mutex.
void unref_locked(pthreadpool_t pool) {
  PoolSlot* s = slot_of(pool);
  if (s == nullptr || --s->users != 0) return;
  pthreadpool_destroy(s->pool);
  *s = PoolSlot{};
}

struct RegionTask {
  void (*task)(void*, size_t);
  void* context;
  static void run(void* self, size_t index) {
    TE_TSAN_ACQUIRE(self);
    const RegionTask* t = static_cast<const RegionTask*>(self);
    const bool was = t_in_parallel_region;
    t_in_parallel_region = true;
    t->task(t->context, index);
    t_in_parallel_region = was;
    TE_TSAN_RELEASE(self);
  }
};

}  // namespace

Error set_num_threads(size_t n) {
  if (n == 0) n = 1;
  TE_CHECK_OR_RETURN(n <= kMaxThreads, Error::InvalidArgument,
                     "set_num_threads: %zu threads requested, at most %zu supported", n,
                     kMaxThreads);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (n == g_threads) return Error::Ok;
  // Kernels read the setting more than once per call (scratch sized for one
  // count, work split by another would overrun it), so it changes only
  // between runs. The check first spares starting a pool that is refused.
  TE_CHECK_OR_RETURN(executions_in_flight() == 0, Error::InvalidState,
                     "set_num_threads(%zu): %zu method executions in flight; change the thread "
                     "count between runs",
                     n, executions_in_flight());
  pthreadpool_t pool = nullptr;
  if (n > 1) {
    PoolSlot* free_slot = slot_of(nullptr);
    TE_CHECK_OR_RETURN(free_slot != nullptr, Error::OutOfResources,
                       "set_num_threads: more than %zu thread pools in use at once", kMaxPools);
    pool = pthreadpool_create(n);
    TE_CHECK_OR_RETURN(pool != nullptr, Error::OutOfResources,
                       "set_num_threads: could not start a pool of %zu threads", n);
    *free_slot = PoolSlot{pool, 1};
  }
  if (!try_begin_setting_change()) {
    if (pool != nullptr) unref_locked(pool);
    record_error_message(
        "set_num_threads(%zu): method executions in flight; change the thread count between runs",
        n);
    return Error::InvalidState;
  }
  if (g_current != nullptr) unref_locked(g_current);
  g_current = pool;
  g_threads = n;
  end_setting_change();
  return Error::Ok;
}

size_t num_threads() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_threads;
}

pthreadpool_t shared_threadpool() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_current;
}

namespace threadpool_detail {

pthreadpool_t acquire_pool() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_current != nullptr) ++slot_of(g_current)->users;
  return g_current;
}

void release_pool(pthreadpool_t pool) {
  if (pool == nullptr) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  unref_locked(pool);
}

bool in_parallel_region() { return t_in_parallel_region; }

void run_on_pool(pthreadpool_t pool, void (*task)(void*, size_t), void* context, size_t count) {
  RegionTask region{task, context};
  TE_TSAN_RELEASE(&region);
  pthreadpool_parallelize_1d(pool, &RegionTask::run, &region, count, 0);
  TE_TSAN_ACQUIRE(&region);
}

}  // namespace threadpool_detail
}  // namespace torchedge
