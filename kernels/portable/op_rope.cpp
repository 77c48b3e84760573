// torchedge::rope.out(Tensor x, Tensor cos, Tensor sin, *, Tensor(a!) out)
//
// Rotary position embedding, the halves convention of transformers'
// rotate_half (python/torchedge/llm/ops.py): x [B, T, H, D], cos and sin
// [T, D] (the rows for x's positions), h = D / 2, for i < h
//   out[.., i]     = x[i] * cos[t, i]     - x[i + h] * sin[t, i]
//   out[.., i + h] = x[i + h] * cos[t, i + h] + x[i] * sin[t, i + h]
// Eager's float32 operations in its order (bit-exact without FMA
// contraction). out may be x itself.
#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error rope_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_ASSIGN_OR_RETURN(const RopeCall call, parse_rope_args(args));
  const int64_t d = call.dim, half = d / 2;
  for (int64_t b = 0; b < call.batch; ++b) {
    for (int64_t t = 0; t < call.tokens; ++t) {
      const float* c = call.cos + t * d;
      const float* s = call.sin + t * d;
      for (int64_t h = 0; h < call.heads; ++h) {
        const int64_t row = ((b * call.tokens + t) * call.heads + h) * d;
        const float* x = call.x + row;
        float* y = call.out + row;
        for (int64_t i = 0; i < half; ++i) {
          const float lo = x[i], hi = x[i + half];  // read both before an in-place write
          y[i] = lo * c[i] - hi * s[i];
          y[i + half] = hi * c[i + half] + lo * s[i + half];
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
