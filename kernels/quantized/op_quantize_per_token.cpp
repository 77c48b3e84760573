// quantized_decomposed::quantize_per_token.out(Tensor input, Tensor scales,
//     Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
//
// For each row r of input [..., K]: out = clamp(round(input * (1 / scales[r])
// + zero_points[r]), quant_min, quant_max). Note the order: eager adds the
// zero point before rounding here (unlike quantize_per_tensor). Computed in
// the scales' dtype (float64 scales, as choose_qparams_per_token_asymmetric
// returns, make it float64). scales/zero_points hold one value per row
// (any shape, e.g. [..., 1]); input and out are row-major.
#include "kernels/quantized/support/channel_params.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/quantize_loops.h"
#include "kernels/quantized/support/token_rows.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error quantize_per_token_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "quantize_per_token.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 1, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_points, tensor_arg(args, 2, "zero_points"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 3, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 4, "quant_max"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 5, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_quantizable_input(*in, kOp));
  TE_CHECK_OR_RETURN(in->dim() >= 1, Error::InvalidArgument, "%s: input must have rank >= 1",
                     kOp);
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, qtype, kOp));
  const quantized::TokenRows rows = quantized::token_rows(*in);
  TE_RETURN_IF_ERROR(
      quantized::check_param_tensors(*scales, zero_points, rows.rows, "token (row)", kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, qtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*in, "input", kOp));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  TE_RETURN_IF_ERROR(resize_like(*out, *in));
  const bool in_double = quantized::params_in_double(*scales);
  return quantized::switch_quantize_types(in->dtype(), qtype, kOp, [&](auto in_tag, auto q_tag) {
    using In = decltype(in_tag);
    using Q = decltype(q_tag);
    constexpr auto kOrder = quantized::RoundOrder::kShiftThenRound;
    for (size_t r = 0; r < rows.rows; ++r) {
      const In* src = in->data_as<In>() + r * rows.length;
      Q* dst = out->mutable_data_as<Q>() + r * rows.length;
      if (in_double) {
        const auto p = quantized::params_at<double>(*scales, *zero_points, r, qmin, qmax);
        quantized::quantize_run<In, Q, double, kOrder>(src, dst, rows.length, p);
      } else {
        const auto p = quantized::params_at<float>(*scales, *zero_points, r, qmin, qmax);
        quantized::quantize_run<In, Q, float, kOrder>(src, dst, rows.length, p);
      }
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
