#include "backends/xnnpack/threadpool.h"

#include "backends/xnnpack/xnnpack_backend.h"
#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {

void set_xnnpack_num_threads(size_t num_threads) {
  // Kept void for existing callers; a failure leaves the old setting and
  // has already been recorded in last_error_message().
  (void)set_num_threads(num_threads);
}

size_t xnnpack_num_threads() { return num_threads(); }

namespace xnnpack {

Result<pthreadpool_t> acquire_threadpool() { return torchedge::acquire_threadpool(); }

void release_threadpool(pthreadpool_t pool) { torchedge::release_threadpool(pool); }

}  // namespace xnnpack
}  // namespace torchedge
