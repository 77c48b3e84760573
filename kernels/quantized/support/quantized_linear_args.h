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

/// The int8 activations as they are, for inner loops that take them raw
/// (the AArch64 dot-product GEMM).
struct QuantizedLinearInput {
  const int8_t* x = nullptr;
  int32_t zero_point = 0;
  /// weight_sums (int32 [N], sum_k weight_q[n, k]) when the program has
  /// them, else nullptr.
  const int32_t* weight_sums = nullptr;
};

/// Takes the arguments with or without the trailing weight_sums (programs
/// written before it have 11). Checks every argument (InvalidArgument
/// naming it; weight_sums must be int32 [N], its values are trusted like
/// the weights'), resizes `out` and
/// fills `problem`; problem->m or ->n is 0 when there is nothing to
/// compute. Without `raw`, problem->x is the input minus its zero point as
/// int16 from ctx's temp allocator (MemoryAllocationFailed when short); with
/// `raw`, nothing is allocated, problem->x stays null and *raw holds the
/// input and its zero point.
Error prepare_quantized_linear(KernelContext& ctx, Span<EValue*> args,
                               quantized::Int8GemmProblem* problem,
                               QuantizedLinearInput* raw = nullptr);

}  // namespace native
}  // namespace torchedge
