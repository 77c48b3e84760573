// torchedge/backends/xnnpack/threadpool.h
//
// The threads XNNPACK delegates run on. One process-wide setting (default
// 1 thread) decides the pool a delegate gets when it is initialized; pools
// are shared by every delegate initialized with the same thread count and
// destroyed when the last of them goes away. A delegate keeps its pool for
// its lifetime, so a new setting applies to programs loaded afterwards.
//
// Thread-safe: the setting and the pool table are guarded by a mutex.
// Two methods executing at once on one shared pool are serialized by
// pthreadpool itself.
#pragma once

#include <cstddef>

#include <pthreadpool.h>

#include "runtime/core/result.h"

namespace torchedge {
namespace xnnpack {

/// A pool for the current setting, or nullptr when it is 1 thread (XNNPACK
/// then runs on the caller's thread). Pair with release_threadpool().
/// OutOfResources when too many distinct thread counts are live at once.
Result<pthreadpool_t> acquire_threadpool();

/// Gives back a pool from acquire_threadpool() (nullptr is a no-op).
void release_threadpool(pthreadpool_t pool);

}  // namespace xnnpack
}  // namespace torchedge
