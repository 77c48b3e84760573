// torchedge/kernels/portable/portable_kernels.h
//
// The portable (reference) kernel library: every operator in plain C++17,
// for every dtype the op supports, with no dependencies beyond the runtime.
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers every portable kernel (see kernel_list.inc) with the kernel
/// registry. Call once at start-up, before loading programs.
Error register_portable_kernels();

}  // namespace torchedge
