// torchedge::conv2d_clamp.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, int groups, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// Optimized: the float32 convolution fast path of aten::convolution.out
// (conv/conv2d_call.h) with the clamp applied where the bias is added (GEMM)
// or before each output store (depthwise), so the activation costs no pass
// of its own over memory. The result is bit-identical to the optimized
// convolution followed by the optimized aten::hardtanh.out. Everything the
// fast path declines, and every malformed call, goes to the portable kernel.
#include "kernels/optimized/conv/conv2d_call.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

Error conv2d_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr Conv2dArgs kAt{0, 1, 2, 3, 4, 5, 6, 9};
  if (args.size() != 10) return native::conv2d_clamp_out(ctx, args);
  Result<double> lo = double_arg(args, 7, "output_min");
  Result<double> hi = double_arg(args, 8, "output_max");
  Conv2dShape s;
  // !(lo <= hi) also sends NaN bounds to the portable kernel's error.
  if (!lo.ok() || !hi.ok() || !(lo.get() <= hi.get()) || !conv2d_fast_shape(args, kAt, &s)) {
    return native::conv2d_clamp_out(ctx, args);
  }
  Conv2dClamp clamp;
  clamp.min = static_cast<float>(lo.get());
  clamp.max = static_cast<float>(hi.get());
  bool declined = false;
  TE_RETURN_IF_ERROR(run_conv2d_fast(ctx, args, kAt, s, clamp, &declined));
  return declined ? native::conv2d_clamp_out(ctx, args) : Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
