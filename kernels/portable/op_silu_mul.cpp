// torchedge::silu_mul.out(Tensor gate, Tensor up, *, Tensor(a!) out)
//
// out = silu(gate) * up = gate / (1 + exp(-gate)) * up, the middle of a
// SwiGLU MLP (python/torchedge/llm/ops.py). float32, one shape, default dim
// order; out may be gate or up itself.
#include <cmath>

#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error silu_mul_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_ASSIGN_OR_RETURN(const SiluMulCall call, parse_silu_mul_args(args));
  for (int64_t i = 0; i < call.count; ++i) {
    const float g = call.gate[i];
    call.out[i] = g / (1.0f + std::exp(-g)) * call.up[i];
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
