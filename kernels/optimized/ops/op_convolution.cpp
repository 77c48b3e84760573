// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//     SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32, 1-d or 2-d (3-d / 4-d tensors), not transposed, input /
// weight / out contiguous: depthwise (groups == Cin == Cout) by direct loops,
// everything else by SGEMM with implicit im2col, bias fused
// (conv/conv2d.h, conv/conv2d_call.h); a 1-d convolution is the 2-d one
// over a 1 x L plane (the audio feature extractors' k3 / k10 s5 layers:
// wav2vec2's seven layers 234 -> 117 ms before any other change). Every
// other case (3-d convolution, transposed, other dtypes or dim orders,
// malformed arguments, scratch too small) is handed to the portable
// kernel, which also reports the errors.
#include "kernels/optimized/conv/conv2d_call.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error convolution_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr Conv2dArgs kAt{0, 1, 2, 3, 4, 5, 8, 9};
  Conv2dShape s;
  if (args.size() != 10) return native::convolution_out(ctx, args);
  Result<bool> transposed = bool_arg(args, 6, "transposed");
  if (!transposed.ok() || transposed.get() || !conv2d_fast_shape(args, kAt, &s)) {
    return native::convolution_out(ctx, args);
  }
  bool declined = false;
  TE_RETURN_IF_ERROR(run_conv2d_fast(ctx, args, kAt, s, Conv2dClamp{}, nullptr, &declined));
  return declined ? native::convolution_out(ctx, args) : Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
