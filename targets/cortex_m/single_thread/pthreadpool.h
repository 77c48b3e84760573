// The one declaration of pthreadpool's API that kernels/optimized/threadpool
// /threadpool.h needs, for the firmware, which has no threads and no
// pthreadpool: a pool handle that is always null (single_thread_pool.cpp),
// so every parallel_for runs inline on the caller.
#pragma once

#include <stddef.h>

typedef struct pthreadpool* pthreadpool_t;

static inline size_t pthreadpool_get_threads_count(pthreadpool_t) { return 1; }
