// The shared thread pool of kernels/optimized/threadpool/threadpool.h on a
// core without threads: one thread, no pool. acquire_pool() returning null
// makes parallel_for / parallel_for_slots run the whole range inline, so
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
bool in_parallel_region() { return false; }
void run_on_pool(pthreadpool_t, void (*task)(void*, size_t), void* context, size_t count) {
  for (size_t i = 0; i < count; ++i) task(context, i);
}

}  // namespace threadpool_detail
}  // namespace torchedge
