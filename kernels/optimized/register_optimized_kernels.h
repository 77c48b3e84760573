// torchedge/kernels/optimized/register_optimized_kernels.h
//
// The optimized CPU kernel library: SIMD (AVX2 / AVX-512 chosen at run time
// by cpu/cpu_features.h, scalar fallback always present) and threaded
// (threadpool/threadpool.h) kernels for the hot operators, under the same
// ATen names as the portable kernels.
//
// Register it AFTER the portable library: the kernel registry replaces an
// earlier registration of the same name, so these kernels win. Each kernel
// handles its fast cases (float32, the layouts it supports) and hands every
// other call to the portable kernel of the same name, so any dtype or shape
// the portable library accepts still works.
//
// Re-registering the portable library afterwards switches back to portable
// kernels for programs loaded from then on (Module does this per
// ModuleOptions::kernels).
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers every optimized kernel (kernel_list.inc + transformer_kernels.inc).
/// Call after register_portable_kernels(), before loading programs.
Error register_optimized_kernels();

}  // namespace torchedge
