// torchedge/kernels/quantized/support/overlapping_input.h
//
// The in-place contract of the int8 convolutions on the host libraries.
// The memory planner may give an op's out the bytes of its input when the
// input dies at that op and every library's kernel allows it
// (python/torchedge/memory/execution_plan.py, IN_PLACE_ARGUMENT:
// conv2d_int8 1x1 / stride 1 / unpadded, depthwise_conv2d_int8 with equal
// in and out sizes). The Cortex-M kernels are alias-safe by their loop order
// (kernels/cortex_m/support); the quantized library's kernels (threads,
// SIMD packers, Winograd) are not, so they read a copy of the input instead:
// the same bytes out as with separate tensors, for one memcpy on a host
// that has the scratch to spare.
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace quantized {

/// The int8 data the kernel should read for `input`: its own bytes when they
/// do not overlap `out`'s, else a copy in kernel scratch (ctx's temp
/// allocator, 64-byte aligned; valid for the rest of the call).
/// Error::MemoryAllocationFailed, naming `op`, if the scratch is missing or
/// too small for the copy.
Result<const int8_t*> input_apart_from_out(KernelContext& ctx, const Tensor& input,
                                           const Tensor& out, const char* op);

}  // namespace quantized
}  // namespace torchedge
