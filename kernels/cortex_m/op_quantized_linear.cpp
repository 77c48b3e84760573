// torchedge::quantized_linear.out on Cortex-M (kernels/cortex_m): the
// arguments and checks of kernels/quantized/op_quantized_linear.cpp, the
// compute of support/int8_linear_dsp.h (SMLAD), bit for bit the quantized
// library's output.
#include "kernels/cortex_m/support/int8_linear_dsp.h"
#include "kernels/quantized/support/quantized_linear_args.h"

namespace torchedge {
namespace cortex_m {

Error quantized_linear_out(KernelContext& ctx, Span<EValue*> args) {
  quantized::Int8GemmProblem p;
  TE_RETURN_IF_ERROR(native::prepare_quantized_linear(ctx, args, &p));
  if (p.m > 0 && p.n > 0) int8_linear_dsp(p);
  return Error::Ok;
}

}  // namespace cortex_m
}  // namespace torchedge
