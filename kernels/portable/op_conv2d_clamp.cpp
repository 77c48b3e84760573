// torchedge::conv2d_clamp.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, int groups, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// out = clamp(conv2d(input, weight, bias), output_min, output_max): a float32
// 2-D convolution with its activation fused (relu: [0, +inf], relu6 and
// hardtanh: [a, b]; python/torchedge/passes/activation_fusion.py makes these
// calls). Runs aten::convolution.out (transposed = false, output_padding
// = [0, 0]), which checks the geometry, then clamps the output in place as
// aten::hardtanh.out does (NaN stays NaN). Errors: input not a 4-d float32
// tensor, a NaN bound, output_min > output_max.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error convolution_out(KernelContext& ctx, Span<EValue*> args);

Error conv2d_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 10));
  TE_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(double lo, double_arg(args, 7, "output_min"));
  TE_ASSIGN_OR_RETURN(double hi, double_arg(args, 8, "output_max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 9, "out"));
  TE_CHECK_OR_RETURN(x->dim() == 4, Error::InvalidArgument,
                     "conv2d_clamp.out: input must be 4-d [N, C, H, W], got %d dims", x->dim());
  TE_RETURN_IF_ERROR(expect_dtype(*x, ScalarType::Float, "conv2d_clamp.out: input"));
  TE_CHECK_OR_RETURN(!std::isnan(lo) && !std::isnan(hi) && lo <= hi, Error::InvalidArgument,
                     "conv2d_clamp.out: need output_min <= output_max, got %g and %g", lo, hi);
  // aten::convolution.out's arguments: input, weight, bias, stride, padding,
  // dilation, transposed, output_padding, groups, out.
  EValue zero(int64_t{0});
  EValue* zeros[2] = {&zero, &zero};
  int64_t scratch[2];
  EValue transposed(false);
  EValue output_padding(IntListRef(zeros, scratch, 2));
  EValue* conv_args[10] = {args[0], args[1], args[2],         args[3], args[4],
                           args[5], &transposed, &output_padding, args[6], args[9]};
  TE_RETURN_IF_ERROR(convolution_out(ctx, {conv_args, 10}));
  const float min_v = static_cast<float>(lo), max_v = static_cast<float>(hi);
  float* y = out->mutable_data_as<float>();
  for (size_t i = 0, n = out->numel(); i < n; ++i) {
    y[i] = min_propagate_nan(max_propagate_nan(y[i], min_v), max_v);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
