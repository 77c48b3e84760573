#include "backends/xnnpack/threadpool.h"

#include <mutex>

#include "backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_message.h"

namespace torchedge {

namespace {

struct SharedPool {
  size_t threads = 0;
  pthreadpool_t pool = nullptr;
  size_t users = 0;
};

// A handful of distinct thread counts alive at once is plenty; the table
// keeps this file free of heap containers.
constexpr size_t kMaxPools = 8;

std::mutex g_mutex;
size_t g_threads = 1;
SharedPool g_pools[kMaxPools];

}  // namespace

void set_xnnpack_num_threads(size_t num_threads) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_threads = num_threads == 0 ? 1 : num_threads;
}

size_t xnnpack_num_threads() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_threads;
}

namespace xnnpack {

Result<pthreadpool_t> acquire_threadpool() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_threads <= 1) return static_cast<pthreadpool_t>(nullptr);
  SharedPool* free_slot = nullptr;
  for (SharedPool& p : g_pools) {
    if (p.pool != nullptr && p.threads == g_threads) {
      ++p.users;
      return p.pool;
    }
    if (p.pool == nullptr && free_slot == nullptr) free_slot = &p;
  }
  TE_CHECK_OR_RETURN(free_slot != nullptr, Error::OutOfResources,
                     "xnnpack delegate: more than %zu distinct thread counts in use at once",
                     kMaxPools);
  pthreadpool_t pool = pthreadpool_create(g_threads);
  TE_CHECK_OR_RETURN(pool != nullptr, Error::DelegateMemoryAllocationFailed,
                     "xnnpack delegate: could not start a pool of %zu threads", g_threads);
  *free_slot = SharedPool{g_threads, pool, 1};
  return pool;
}

void release_threadpool(pthreadpool_t pool) {
  if (pool == nullptr) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (SharedPool& p : g_pools) {
    if (p.pool != pool) continue;
    if (--p.users == 0) {
      pthreadpool_destroy(p.pool);
      p = SharedPool{};
    }
    return;
  }
}

}  // namespace xnnpack
}  // namespace torchedge
