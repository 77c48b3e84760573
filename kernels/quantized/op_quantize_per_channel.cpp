// quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales,
//     Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *,
//     Tensor(a!) out)
//
// For channel c of dimension `axis` (any axis, negative counts from the end,
// any rank >= 1): out = clamp(round(input * (1 / scales[c])) + zero_points[c],
// quant_min, quant_max), computed in the scales' dtype as eager does
// (support/quantize_loops.h). scales/zero_points hold size(axis) elements.
#include "kernels/quantized/support/channel_params.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/quantize_loops.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error quantize_per_channel_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "quantize_per_channel.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 1, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_points, tensor_arg(args, 2, "zero_points"));
  TE_ASSIGN_OR_RETURN(int64_t axis_arg, int_arg(args, 3, "axis"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 4, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 5, "quant_max"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 6, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_quantizable_input(*in, kOp));
  TE_CHECK_OR_RETURN(in->dim() >= 1, Error::InvalidArgument, "%s: input must have rank >= 1",
                     kOp);
  TE_ASSIGN_OR_RETURN(int axis, normalize_dim(axis_arg, in->dim(), "axis"));
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, qtype, kOp));
  TE_RETURN_IF_ERROR(quantized::check_param_tensors(
      *scales, zero_points, static_cast<size_t>(in->size(axis)), "channel of axis", kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, qtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_same_layout(*in, *out, kOp));
  TE_RETURN_IF_ERROR(resize_like(*out, *in));
  const bool in_double = quantized::params_in_double(*scales);
  return quantized::switch_quantize_types(in->dtype(), qtype, kOp, [&](auto in_tag, auto q_tag) {
    using In = decltype(in_tag);
    using Q = decltype(q_tag);
    const In* src = in->data_as<In>();
    Q* dst = out->mutable_data_as<Q>();
    quantized::for_each_channel_run(*in, axis, [&](size_t c, size_t offset, size_t count) {
      if (in_double) {
        const auto p = quantized::params_at<double>(*scales, *zero_points, c, qmin, qmax);
        quantized::quantize_run<In, Q, double, quantized::RoundOrder::kRoundThenShift>(
            src + offset, dst + offset, count, p);
      } else {
        const auto p = quantized::params_at<float>(*scales, *zero_points, c, qmin, qmax);
        quantized::quantize_run<In, Q, float, quantized::RoundOrder::kRoundThenShift>(
            src + offset, dst + offset, count, p);
      }
    });
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
