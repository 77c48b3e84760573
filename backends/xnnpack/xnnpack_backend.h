// torchedge/backends/xnnpack/xnnpack_backend.h
//
// "XnnpackBackend": the float32 and int8 CPU delegate built on XNNPACK (Debian's
// 2022-02-16 snapshot). Its ahead-of-time half is
// python/torchedge/backends/xnnpack/ (XnnpackPartitioner + preprocess, which
// writes the "TEX1" blob described in blob_format.h).
//
//   init     parses and validates the blob, builds the XNNPACK subgraph and
//            creates its runtime once (weights are packed here, by XNNPACK,
//            into its own memory); per-delegate state (bindings, NHWC
//            staging buffers, constants XNNPACK reads at run time) comes
//            from the allocator passed to init.
//   execute  binds the call's tensors as XNNPACK external values without
//            copies where the layout allows (NCHW tensors of NHWC values go
//            through the staging buffers), re-runs xnn_setup_runtime only
//            when a tensor's address changed, and invokes the runtime. It
//            allocates nothing.
//   destroy  deletes the XNNPACK runtime and releases its thread pool.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace torchedge {

/// Registers the backend under "XnnpackBackend" (idempotent). NotSupported
/// is not returned here: on a CPU XNNPACK cannot use, is_available() is
/// false and programs needing the backend fail at load with that reason.
Error register_xnnpack_backend();

/// Threads used by XNNPACK delegates initialized from now on (default 1;
/// 0 is read as 1). Process-wide; see backends/xnnpack/threadpool.h.
void set_xnnpack_num_threads(size_t num_threads);

/// The current setting of set_xnnpack_num_threads().
size_t xnnpack_num_threads();

/// Delegates initialized and not yet destroyed (for tests).
int xnnpack_live_delegates();

}  // namespace torchedge
