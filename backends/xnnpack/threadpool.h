// torchedge/backends/xnnpack/threadpool.h
//
// The threads XNNPACK delegates run on: the process-wide pool shared with the
// optimized kernels (kernels/optimized/threadpool/threadpool.h). A delegate
// acquires the pool of the current setting when it is initialized and keeps
// it for its lifetime, so a new setting applies to programs loaded
// afterwards; the pool is destroyed when neither the setting nor any
// delegate names it. set_xnnpack_num_threads() is an alias of
// torchedge::set_num_threads().
#pragma once

#include <cstddef>

#include <pthreadpool.h>

#include "runtime/core/result.h"

namespace torchedge {
namespace xnnpack {

/// The shared pool for the current setting, or nullptr when it is 1 thread
/// (XNNPACK then runs on the caller's thread). Pair with release_threadpool().
Result<pthreadpool_t> acquire_threadpool();

/// Gives back a pool from acquire_threadpool() (nullptr is a no-op).
void release_threadpool(pthreadpool_t pool);

}  // namespace xnnpack
}  // namespace torchedge
