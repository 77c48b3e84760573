// quantized_decomposed::dequantize_per_channel_group.out(Tensor input, Tensor scales,
//     Tensor? zero_points, int quant_min, int quant_max, ScalarType dtype, int group_size,
//     ScalarType output_dtype, *, Tensor(a!) out)
//
// input is 2-d [N, K]; every `group_size` consecutive elements of a row
// share scales[i] / zero_points[i] (i = (n * K + k) / group_size, so the
// parameters hold N * K / group_size values in any shape, e.g. [N, K / g]).
// out = ((input - zp) * scale) in the scales' dtype, converted once to
// output_dtype, as eager. As eager: group_size must be > 1, K % group_size
// == 0, and a group_size larger than K with single-column scales means K.
#include "kernels/quantized/support/channel_params.h"
#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error dequantize_per_channel_group_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "dequantize_per_channel_group.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 9));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 1, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_points, optional_tensor_arg(args, 2, "zero_points"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 3, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 4, "quant_max"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 5, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(int64_t group_size, int_arg(args, 6, "group_size"));
  TE_ASSIGN_OR_RETURN(ScalarType out_dtype, quantized::float_dtype_arg(
                                                args, 7, "output_dtype", kOp, ScalarType::Float));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 8, "out"));
  (void)qmin;  // metadata only, as in eager
  (void)qmax;
  TE_CHECK_OR_RETURN(in->dtype() == qtype, Error::InvalidType,
                     "%s: Expecting input to have dtype: %s, but got dtype: %s", kOp,
                     to_string(qtype), to_string(in->dtype()));
  TE_CHECK_OR_RETURN(in->dim() == 2, Error::InvalidArgument, "%s: w_int8 must be 2-dimensional",
                     kOp);
  TE_CHECK_OR_RETURN(group_size > 1, Error::InvalidArgument, "%s: group_size must be > 1", kOp);
  const int64_t k = in->size(1);
  if (group_size > k && scales->dim() >= 1 && scales->size(-1) == 1) group_size = k;
  TE_CHECK_OR_RETURN(group_size > 0 && k % group_size == 0, Error::InvalidArgument,
                     "%s: w_int8.shape[-1] (%lld) must be divisible by group_size (%lld)", kOp,
                     static_cast<long long>(k), static_cast<long long>(group_size));
  const size_t groups = in->numel() / static_cast<size_t>(group_size);
  TE_RETURN_IF_ERROR(quantized::check_param_tensors(*scales, zero_points, groups, "group", kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, out_dtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*in, "input", kOp));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  TE_RETURN_IF_ERROR(resize_like(*out, *in));
  const bool in_double = quantized::params_in_double(*scales);
  const size_t g = static_cast<size_t>(group_size);
  return quantized::switch_dequantize_types(qtype, out_dtype, kOp, [&](auto q_tag, auto out_tag) {
    using Q = decltype(q_tag);
    using Out = decltype(out_tag);
    for (size_t i = 0; i < groups; ++i) {
      const Q* src = in->data_as<Q>() + i * g;
      Out* dst = out->mutable_data_as<Out>() + i * g;
      if (in_double) {
        quantized::dequantize_run_with_params<Q, double, Out>(src, dst, g, *scales, zero_points,
                                                              i);
      } else {
        quantized::dequantize_run_with_params<Q, float, Out>(src, dst, g, *scales, zero_points, i);
      }
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
