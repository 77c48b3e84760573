// torchedge::rms_norm.out(Tensor input, Tensor weight, float eps, *, Tensor(a!) out)
//
// Over the last dim, as transformers' LlamaRMSNorm (python/torchedge/llm/ops.py):
//   out = weight * (x * rsqrt(mean(x * x) + eps))
// float32, default dim order. The sum of squares is taken in double (eager
// sums float32 pairwise: the two agree to float rounding); the rest follows
// eager's float32 operations in its order.
#include <cmath>

#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error rms_norm_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_ASSIGN_OR_RETURN(const RmsNormCall call, parse_rms_norm_args(args));
  for (int64_t r = 0; r < call.rows; ++r) {
    const float* x = call.input + r * call.dim;
    float* y = call.out + r * call.dim;
    double squares = 0.0;
    for (int64_t i = 0; i < call.dim; ++i) squares += static_cast<double>(x[i]) * x[i];
    const float mean = static_cast<float>(squares / static_cast<double>(call.dim));
    const float inv = 1.0f / std::sqrt(mean + call.eps);
    for (int64_t i = 0; i < call.dim; ++i) y[i] = call.weight[i] * (x[i] * inv);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
