// torchedge::linear_q4a.out(Tensor input, Tensor packed_weight, Tensor scales,
//     Tensor mins, int group_size, int activation_bits, Tensor? bias, *,
//     Tensor(a!) out)
//
// 4-bit affine group-wise weights (GGUF Q4_1's arithmetic: codes q in
// [0, 15] two per byte, float16 scale and min per row and group of g along
// K, w = q * scale + min) times float32 activations (activation_bits 32)
// or int8 activations quantized per row and group (activation_bits 8:
// out = sum_j s_j * (scale_j * sum(xq * q) + min_j * sum(xq)) + bias, exact
// integer sums). Contract: python/torchedge/quantization/affine4_linear.py;
// loops and numerics: support/group_linear.h. Scratch (temp allocator):
// the quantized rows and, above a few rows, one unpacked weight panel per thread.
#include "kernels/quantized/support/group_linear_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace native {

Error linear_q4a_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linear_q4a.out";
  TE_ASSIGN_OR_RETURN(const quantized::GroupLinearCall call,
                      quantized::parse_linear_q4a_args(args, kOp));
  return quantized::run_group_linear_kernel(ctx, call, kOp);
}

}  // namespace native
}  // namespace torchedge
