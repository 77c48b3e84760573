// torchedge/kernels/quantized/support/quantized_linear_args.h
//
// The argument handling of torchedge::quantized_linear.out
// (op_quantized_linear.cpp), shared with the kernels that compute the same
// operator with other inner loops (kernels/cortex_m).
#pragma once

#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/int8_gemm.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

/// Checks every argument (InvalidArgument naming it), resizes `out`, takes
/// the input minus its zero point as int16 from ctx's temp allocator
/// (MemoryAllocationFailed when short) and fills `problem`; problem->m or
/// ->n is 0 when there is nothing to compute.
Error prepare_quantized_linear(KernelContext& ctx, Span<EValue*> args,
                               quantized::Int8GemmProblem* problem);

}  // namespace native
}  // namespace torchedge
