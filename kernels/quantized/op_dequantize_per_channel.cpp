// quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales,
//     Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *,
//     ScalarType? out_dtype=None, Tensor(a!) out)
//
// For channel c of dimension `axis`: out = ((input - zero_points[c]) * scales[c])
// computed in the scales' dtype, then converted to out_dtype (float32 when
// None) once, as eager does (support/dequantize_loops.h). input's dtype must
// equal `dtype`; quant_min/quant_max are range-checked as eager does.
#include "kernels/quantized/support/channel_params.h"
#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error dequantize_per_channel_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "dequantize_per_channel.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 9));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 1, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_points, optional_tensor_arg(args, 2, "zero_points"));
  TE_ASSIGN_OR_RETURN(int64_t axis_arg, int_arg(args, 3, "axis"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 4, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 5, "quant_max"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 6, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(ScalarType out_dtype, quantized::float_dtype_arg(args, 7, "out_dtype", kOp,
                                                                        ScalarType::Float));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 8, "out"));
  TE_CHECK_OR_RETURN(in->dtype() == qtype, Error::InvalidType,
                     "%s: Expecting input to have dtype: %s, but got dtype: %s", kOp,
                     to_string(qtype), to_string(in->dtype()));
  TE_CHECK_OR_RETURN(in->dim() >= 1, Error::InvalidArgument, "%s: input must have rank >= 1",
                     kOp);
  TE_ASSIGN_OR_RETURN(int axis, normalize_dim(axis_arg, in->dim(), "axis"));
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, qtype, kOp));
  TE_RETURN_IF_ERROR(quantized::check_param_tensors(
      *scales, zero_points, static_cast<size_t>(in->size(axis)), "channel of axis", kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, out_dtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_same_layout(*in, *out, kOp));
  TE_RETURN_IF_ERROR(resize_like(*out, *in));
  const bool in_double = quantized::params_in_double(*scales);
  return quantized::switch_dequantize_types(qtype, out_dtype, kOp, [&](auto q_tag, auto out_tag) {
    using Q = decltype(q_tag);
    using Out = decltype(out_tag);
    const Q* src = in->data_as<Q>();
    Out* dst = out->mutable_data_as<Out>();
    quantized::for_each_channel_run(*in, axis, [&](size_t c, size_t offset, size_t count) {
      if (in_double) {
        quantized::dequantize_run_with_params<Q, double, Out>(src + offset, dst + offset, count,
                                                              *scales, zero_points, c);
      } else {
        quantized::dequantize_run_with_params<Q, float, Out>(src + offset, dst + offset, count,
                                                             *scales, zero_points, c);
      }
    });
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
