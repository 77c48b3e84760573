// torchedge/kernels/optimized/threadpool/threadpool.h
//
// The process-wide thread setting shared by the optimized kernels and the
// XNNPACK delegate: one count, two sets of workers. parallel_for runs on a
// WorkPool (work_pool.h: items claimed one by one, so a worker the OS has
// not scheduled delays nothing); the XNNPACK delegate runs on a pthreadpool
// of the same size, which XNNPACK's API requires.
//
//   set_num_threads(n)      threads for kernels and for delegates initialized
//                           afterwards (default 1; 0 is read as 1).
//   shared_threadpool()     the pool of the current setting, or nullptr for 1
//                           thread. The pointer stays valid until the next
//                           set_num_threads(); holders that outlive that (an
//                           XNNPACK delegate) use acquire_threadpool().
//   parallel_for(b, e, grain, fn)
//                           calls fn(chunk_begin, chunk_end) over disjoint
//                           chunks covering [b, e), each at least `grain`
//                           long (except the last), on the pool's threads
//                           and the caller's. Runs fn(b, e) inline when the
//                           setting is 1, the range is at most one grain, or
//                           the caller is already inside a parallel_for
//                           (nested calls never deadlock; they run serially)
//                           or another thread's parallel_for holds the pool
//                           (concurrent methods: each runs on its own thread
//                           rather than queueing).
//                           Never allocates on the heap. Returns when every
//                           chunk is done.
//   parallel_for_slots(b, e, grain, slots, fn)
//                           parallel_for whose chunks each also get a scratch
//                           slot in [0, slots) that no other running chunk
//                           holds: fn(chunk_begin, chunk_end, slot), for
//                           kernels with per-worker scratch (the Winograd
//                           bands and GEMMs).
//
// Thread-safety: the setting is guarded by a mutex. set_num_threads() while
// any Method::execute() is in flight (any thread) fails with InvalidState
// and keeps the old setting (runtime/core/execution_gate.h): change threads
// between runs. Two threads running parallel_for at once: the first gets the
// pool, the second runs its whole range inline.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <pthreadpool.h>

#include "runtime/core/error.h"
#include "runtime/core/result.h"

namespace torchedge {

class WorkPool;  // work_pool.h (a target without threads has none)

/// Sets the thread count (0 is read as 1). InvalidArgument above
/// kMaxThreads; InvalidState while a method executes; OutOfResources when
/// the pool cannot be started (the old setting then stays).
Error set_num_threads(size_t n);

/// The current setting (>= 1).
size_t num_threads();

/// The pool of the current setting; nullptr when it is 1 thread.
pthreadpool_t shared_threadpool();

/// Upper bound of set_num_threads().
constexpr size_t kMaxThreads = 256;

namespace threadpool_detail {

/// A reference-counted handle on the current pool (nullptr for 1 thread);
/// pair with release_pool(). Keeps the pool alive across set_num_threads().
pthreadpool_t acquire_pool();
void release_pool(pthreadpool_t pool);

/// A reference-counted handle on the current setting's WorkPool (nullptr
/// for 1 thread); pair with release_work_pool().
WorkPool* acquire_work_pool();
void release_work_pool(WorkPool* pool);

/// Threads that run a pool's items at once (the caller included).
size_t work_pool_threads(WorkPool* pool);

/// Whether the calling thread is inside a parallel_for chunk.
bool in_parallel_region();

/// Runs task(context, i) for i in [0, count) on `pool`, marking every
/// participating thread as inside a parallel region. False, having run
/// nothing, when another thread's job holds the pool.
bool run_on_pool(WorkPool* pool, void (*task)(void*, size_t), void* context, size_t count);

template <typename F>
struct ChunkTask {
  const F* fn;
  int64_t begin, end, chunk;
  static void run(void* self, size_t index) {
    const ChunkTask* t = static_cast<const ChunkTask*>(self);
    const int64_t b = t->begin + static_cast<int64_t>(index) * t->chunk;
    const int64_t e = t->end - b < t->chunk ? t->end : b + t->chunk;
    (*t->fn)(b, e);
  }
};

}  // namespace threadpool_detail

/// Acquire/release for holders that outlive a setting (XNNPACK delegates).
/// acquire_threadpool() returns nullptr for 1 thread.
inline pthreadpool_t acquire_threadpool() { return threadpool_detail::acquire_pool(); }
inline void release_threadpool(pthreadpool_t pool) { threadpool_detail::release_pool(pool); }

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end <= begin) return;
  if (grain < 1) grain = 1;
  const int64_t range = end - begin;
  if (range <= grain || threadpool_detail::in_parallel_region()) {
    fn(begin, end);
    return;
  }
  WorkPool* pool = threadpool_detail::acquire_work_pool();
  if (pool == nullptr) {
    fn(begin, end);
    return;
  }
  // Up to 16 chunks per thread (each still at least `grain`): a thread that
  // starts late or runs slower (a worker waking up, a vCPU shared with other
  // tenants) then leaves at most a small chunk for the others to wait on.
  // Whisper's encoder at 2 threads (attention: 128 blocks of 48 query rows,
  // 8 chunks before): median 80.8 -> 78.7 ms over 20 alternating runs, within
  // the noise of the shared 2-vCPU host it was measured on.
  const int64_t threads = static_cast<int64_t>(threadpool_detail::work_pool_threads(pool));
  int64_t chunks = (range + grain - 1) / grain;
  if (chunks > 16 * threads) chunks = 16 * threads;
  int64_t chunk = (range + chunks - 1) / chunks;
  if (chunk < grain) chunk = grain;
  chunks = (range + chunk - 1) / chunk;
  threadpool_detail::ChunkTask<F> task{&fn, begin, end, chunk};
  if (!threadpool_detail::run_on_pool(pool, &threadpool_detail::ChunkTask<F>::run, &task,
                                      static_cast<size_t>(chunks))) {
    fn(begin, end);  // another thread's parallel_for holds the pool
  }
  threadpool_detail::release_work_pool(pool);
}

/// `slots` must be at least min(num_threads(), number of chunks): the most
/// chunks that run at once (grain 1 over `slots` or more items: pass
/// min(items, num_threads())). A chunk claims the first free slot.
template <typename F>
void parallel_for_slots(int64_t begin, int64_t end, int64_t grain, int64_t slots, const F& fn) {
  if (slots <= 1) {
    if (end > begin) fn(begin, end, int64_t{0});
    return;
  }
  std::atomic<bool> busy[kMaxThreads] = {};
  const int64_t count = slots < static_cast<int64_t>(kMaxThreads) ? slots
                                                                  : static_cast<int64_t>(kMaxThreads);
  parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    int64_t slot = 0;
    while (busy[slot].exchange(true, std::memory_order_acquire)) slot = (slot + 1) % count;
    fn(b, e, slot);
    busy[slot].store(false, std::memory_order_release);
  });
}

}  // namespace torchedge
