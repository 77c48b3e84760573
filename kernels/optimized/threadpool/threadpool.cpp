#include "kernels/optimized/threadpool/threadpool.h"

#include <mutex>

#include "kernels/optimized/threadpool/work_pool.h"
#include "runtime/core/error_message.h"
#include "runtime/core/execution_gate.h"

namespace torchedge {
namespace {

// A pool stays alive while the setting names it or a holder (a delegate, a
// running parallel_for) has acquired it. A few distinct pools alive at once
// is plenty, so a fixed table keeps this file free of heap containers.
struct PoolSlot {
  pthreadpool_t pool = nullptr;  // XNNPACK's workers
  WorkPool* work = nullptr;      // parallel_for's
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

PoolSlot* slot_of_work(WorkPool* work) {
  for (PoolSlot& s : g_slots) {
    if (s.work == work) return &s;
  }
  return nullptr;
}

// Drops one user of a slot; destroys its pools when none remain. Caller
// holds g_mutex.
void unref_locked(PoolSlot* s) {
  if (s == nullptr || --s->users != 0) return;
  pthreadpool_destroy(s->pool);
  delete s->work;
  *s = PoolSlot{};
}

struct RegionTask {
  void (*task)(void*, size_t);
  void* context;
  static void run(void* self, size_t index) {
    const RegionTask* t = static_cast<const RegionTask*>(self);
    const bool was = t_in_parallel_region;
    t_in_parallel_region = true;
    t->task(t->context, index);
    t_in_parallel_region = was;
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
    WorkPool* work = pool != nullptr ? WorkPool::create(n) : nullptr;
    if (work == nullptr && pool != nullptr) pthreadpool_destroy(pool);
    TE_CHECK_OR_RETURN(work != nullptr, Error::OutOfResources,
                       "set_num_threads: could not start a pool of %zu threads", n);
    *free_slot = PoolSlot{pool, work, 1};
  }
  if (!try_begin_setting_change()) {
    if (pool != nullptr) unref_locked(slot_of(pool));
    record_error_message(
        "set_num_threads(%zu): method executions in flight; change the thread count between runs",
        n);
    return Error::InvalidState;
  }
  if (g_current != nullptr) unref_locked(slot_of(g_current));
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
  unref_locked(slot_of(pool));
}

WorkPool* acquire_work_pool() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_current == nullptr) return nullptr;
  PoolSlot* s = slot_of(g_current);
  ++s->users;
  return s->work;
}

void release_work_pool(WorkPool* pool) {
  if (pool == nullptr) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  unref_locked(slot_of_work(pool));
}

bool in_parallel_region() { return t_in_parallel_region; }

size_t work_pool_threads(WorkPool* pool) { return pool->threads(); }

bool run_on_pool(WorkPool* pool, void (*task)(void*, size_t), void* context, size_t count) {
  RegionTask region{task, context};
  return pool->try_run(&RegionTask::run, &region, count);
}

}  // namespace threadpool_detail
}  // namespace torchedge
