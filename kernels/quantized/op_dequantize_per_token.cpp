// quantized_decomposed::dequantize_per_token.out(Tensor input, Tensor scales,
//     Tensor zero_points, int quant_min, int quant_max, ScalarType dtype,
//     ScalarType output_dtype, *, Tensor(a!) out)
//
// For each row r of input [..., K]: out = ((input - zero_points[r]) * scales[r])
// in the scales' dtype, converted once to output_dtype (eager's order).
// Zero points may be integer or floating (choose_qparams_per_token returns
// float zeros). input's dtype must equal `dtype` (eager does not check; a
// mismatch is a lowering bug worth reporting); input and out are row-major.
#include "kernels/quantized/support/channel_params.h"
#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/token_rows.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error dequantize_per_token_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "dequantize_per_token.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 1, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_points, tensor_arg(args, 2, "zero_points"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 3, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 4, "quant_max"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 5, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(ScalarType out_dtype, quantized::float_dtype_arg(
                                                args, 6, "output_dtype", kOp, ScalarType::Float));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  TE_CHECK_OR_RETURN(in->dtype() == qtype, Error::InvalidType,
                     "%s: Expecting input to have dtype: %s, but got dtype: %s", kOp,
                     to_string(qtype), to_string(in->dtype()));
  TE_CHECK_OR_RETURN(in->dim() >= 1, Error::InvalidArgument, "%s: input must have rank >= 1",
                     kOp);
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, qtype, kOp));
  const quantized::TokenRows rows = quantized::token_rows(*in);
  TE_RETURN_IF_ERROR(
      quantized::check_param_tensors(*scales, zero_points, rows.rows, "token (row)", kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, out_dtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*in, "input", kOp));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  TE_RETURN_IF_ERROR(resize_like(*out, *in));
  const bool in_double = quantized::params_in_double(*scales);
  return quantized::switch_dequantize_types(qtype, out_dtype, kOp, [&](auto q_tag, auto out_tag) {
    using Q = decltype(q_tag);
    using Out = decltype(out_tag);
    for (size_t r = 0; r < rows.rows; ++r) {
      const Q* src = in->data_as<Q>() + r * rows.length;
      Out* dst = out->mutable_data_as<Out>() + r * rows.length;
      if (in_double) {
        quantized::dequantize_run_with_params<Q, double, Out>(src, dst, rows.length, *scales,
                                                              zero_points, r);
      } else {
        quantized::dequantize_run_with_params<Q, float, Out>(src, dst, rows.length, *scales,
                                                             zero_points, r);
      }
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
