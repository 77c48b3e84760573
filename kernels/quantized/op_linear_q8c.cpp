// torchedge::linear_q8c.out(Tensor input, Tensor weight_q, Tensor scales,
//     int group_size, int activation_bits, Tensor? bias, *, Tensor(a!) out)
//
// int8 symmetric per-channel weights (weight_q int8 [N, K], scales float32
// [N], w = q * scale[n]) times float32 activations (activation_bits 32) or
// int8 activations quantized per row and group of g along K
// (activation_bits 8: out = scale[n] * sum_j s_j * sum(xq * q) + bias,
// exact integer sums); a decoder LLM's output projection. Contract:
// python/torchedge/quantization/int8_channel_linear.py; loops and numerics:
// support/group_linear.h. Scratch (temp allocator): the quantized rows and,
// above a few rows, one unpacked weight panel per thread.
#include "kernels/quantized/support/group_linear_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace native {

Error linear_q8c_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linear_q8c.out";
  TE_ASSIGN_OR_RETURN(const quantized::GroupLinearCall call,
                      quantized::parse_linear_q8c_args(args, kOp));
  return quantized::run_group_linear_kernel(ctx, call, kOp);
}

}  // namespace native
}  // namespace torchedge
