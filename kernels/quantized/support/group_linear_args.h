// torchedge/kernels/quantized/support/group_linear_args.h
//
// Argument validation of torchedge::linear_q4a.out and linear_q8c.out, in
// their schema order (out last):
//   linear_q4a.out(Tensor input, Tensor packed_weight, Tensor scales,
//       Tensor mins, int group_size, int activation_bits, Tensor? bias, *,
//       Tensor(a!) out)
//   linear_q8c.out(Tensor input, Tensor weight_q, Tensor scales,
//       int group_size, int activation_bits, Tensor? bias, *, Tensor(a!) out)
// input float32 of any rank >= 1 with K features (rows = numel / K),
// row-major; packed_weight uint8 [N, K/2] / weight_q int8 [N, K]; scales and
// mins float16 [N, K/g] (q4a) / scales float32 [N] (q8c); group_size in
// {32, 64, 128, 256} dividing K; activation_bits 8 or 32; bias float32 [N]
// or None; out float32, resized to [..., N], not overlapping the input.
// Every violation is InvalidArgument with a message naming the argument.
#pragma once

#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/group_linear.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace quantized {

Result<GroupLinearCall> parse_linear_q4a_args(Span<EValue*> args, const char* op);
Result<GroupLinearCall> parse_linear_q8c_args(Span<EValue*> args, const char* op);

/// Runs a validated call on the shared thread pool with the best ISA, its
/// scratch from ctx's temp allocator (MemoryAllocationFailed naming `op` and
/// the size when that is missing or too small). The body of both kernels.
Error run_group_linear_kernel(KernelContext& ctx, const GroupLinearCall& call, const char* op);

}  // namespace quantized
}  // namespace torchedge
