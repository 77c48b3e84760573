// torchedge/backends/test_backend/test_backend.h
//
// "TorchEdgeTestBackend": a deliberately tiny delegate (float32 add/mul of
// same-shaped tensors) that exercises the whole delegation path
// (preprocess -> segment -> init -> execute -> destroy) independently of
// XNNPACK. Its ahead-of-time half is python/torchedge/backends/test_backend.py,
// which also documents the blob format.
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers the backend under "TorchEdgeTestBackend" (idempotent).
Error register_test_backend();

/// Number of delegates currently initialized and not destroyed (for tests).
int test_backend_live_delegates();

}  // namespace torchedge
