// The shared thread pool of kernels/optimized/threadpool/threadpool.h on a
// core without threads: one thread, no pool. acquire_work_pool() returning
// null makes parallel_for / parallel_for_slots run the whole range inline, so
// the quantized kernels' scalar paths work unchanged on the firmware.
#include "kernels/optimized/threadpool/threadpool.h"

#include "runtime/core/error_message.h"

namespace torchedge {

Error set_num_threads(size_t n) {
  TE_CHECK_OR_RETURN(n == 1, Error::InvalidArgument,
                     "set_num_threads(%zu): this target runs one thread", n);
  return Error::Ok;
}

size_t num_threads() { return 1; }

pthreadpool_t shared_threadpool() { return nullptr; }

namespace threadpool_detail {

pthreadpool_t acquire_pool() { return nullptr; }
void release_pool(pthreadpool_t) {}
WorkPool* acquire_work_pool() { return nullptr; }
void release_work_pool(WorkPool*) {}
size_t work_pool_threads(WorkPool*) { return 1; }
bool in_parallel_region() { return false; }
bool run_on_pool(WorkPool*, void (*)(void*, size_t), void*, size_t) { return false; }

}  // namespace threadpool_detail
}  // namespace torchedge
