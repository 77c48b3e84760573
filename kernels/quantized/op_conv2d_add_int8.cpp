// torchedge::conv2d_add_int8.out(Tensor input, float input_scale, int input_zero_point,
//     Tensor weight_panels, Tensor weight_scales, Tensor? bias, int[] kernel_size,
//     int[] stride, int[] padding, int[] dilation, int groups, float conv_scale,
//     int conv_zero_point, int conv_min, int conv_max, Tensor residual,
//     float residual_scale, int residual_zero_point, float output_scale,
//     int output_zero_point, int output_min, int output_max, int weight_bits=8,
//     Tensor? weight_sums=None, *, Tensor(a!) out)
//
// A ResNet block's tail in one call: add_int8(conv2d_int8(input, ...,
// conv_scale, conv_zero_point, conv_min, conv_max), conv_scale,
// conv_zero_point, residual, residual_scale, residual_zero_point,
// output_scale, output_zero_point, output_min, output_max), the conv's int8
// output never written. The conv arguments are conv2d_int8's (its output_*
// renamed conv_*; see op_conv2d_int8.cpp); residual int8 of the output's
// shape [N, Cout, OH, OW], row-major, not overlapping out; out int8 like it.
// Numerics: support/int8_conv.h "Residual add" (bit for bit the two ops'
// composition on every ISA). Scratch: conv2d_int8's. Eager reference:
// python/torchedge/quantization/int8_conv_ops.py.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/int8_conv_operands.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

constexpr const char* kOp = "conv2d_add_int8.out";

Result<quantized::Int8ConvArgs> conv_args(Span<EValue*> args) {
  quantized::Int8ConvArgs a{};
  TE_ASSIGN_OR_RETURN(const size_t count, read_int8_conv_weight_bits(args, 23, &a));
  TE_RETURN_IF_ERROR(read_int8_conv_operands(args, &a));
  TE_ASSIGN_OR_RETURN(a.output_scale, double_arg(args, 11, "conv_scale"));
  TE_ASSIGN_OR_RETURN(a.output_zero_point, int_arg(args, 12, "conv_zero_point"));
  TE_ASSIGN_OR_RETURN(a.output_min, int_arg(args, 13, "conv_min"));
  TE_ASSIGN_OR_RETURN(a.output_max, int_arg(args, 14, "conv_max"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, count - 1, "out"));
  a.output_scale_name = "conv_scale";
  a.output_zero_point_name = "conv_zero_point";
  return a;
}

// The residual against the (resized) output: int8, its shape, row-major,
// disjoint from it (the epilogue reads each element after writing others).
Error check_residual(const Tensor& residual, const Tensor& out) {
  TE_CHECK_OR_RETURN(residual.dtype() == ScalarType::Char, Error::InvalidArgument,
                     "%s: residual must be int8 (like the output), got %s", kOp,
                     to_string(residual.dtype()));
  bool same_shape = residual.dim() == out.dim();
  for (int d = 0; same_shape && d < out.dim(); ++d) same_shape = residual.size(d) == out.size(d);
  TE_CHECK_OR_RETURN(same_shape, Error::InvalidArgument,
                     "%s: residual must have the conv output's shape [%d, %d, %d, %d], got a "
                     "%d-d tensor of %zu elements",
                     kOp, out.size(0), out.size(1), out.size(2), out.size(3), residual.dim(),
                     residual.numel());
  TE_RETURN_IF_ERROR(quantized::expect_row_major(residual, "residual", kOp));
  TE_CHECK_OR_RETURN(!bytes_overlap(residual, out), Error::InvalidArgument,
                     "%s: residual must not overlap out", kOp);
  return Error::Ok;
}

// The add's parameters (arguments 16-21) into p->residual_add.
Error add_params(Span<EValue*> args, const quantized::Int8ConvArgs& conv,
                 quantized::Int8ConvProblem* p) {
  TE_ASSIGN_OR_RETURN(double r_scale, double_arg(args, 16, "residual_scale"));
  TE_ASSIGN_OR_RETURN(int64_t r_zp, int_arg(args, 17, "residual_zero_point"));
  TE_ASSIGN_OR_RETURN(double out_scale, double_arg(args, 18, "output_scale"));
  TE_ASSIGN_OR_RETURN(int64_t out_zp, int_arg(args, 19, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(int64_t out_min, int_arg(args, 20, "output_min"));
  TE_ASSIGN_OR_RETURN(int64_t out_max, int_arg(args, 21, "output_max"));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(r_scale, "residual_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(r_zp, "residual_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(out_scale, "output_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(out_zp, "output_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_quant_range(out_min, out_max, ScalarType::Char, kOp));
  // As op_add_int8.cpp fills them, with a = the conv's output.
  quantized::Int8AddProblem& add = p->residual_add;
  add.a_scale = conv.output_scale;
  add.a_zero_point = static_cast<double>(conv.output_zero_point);
  add.b_scale = r_scale;
  add.b_zero_point = static_cast<double>(r_zp);
  add.out_params = {static_cast<float>(1.0 / out_scale), static_cast<float>(out_zp),
                    static_cast<float>(out_min), static_cast<float>(out_max)};
  return Error::Ok;
}

}  // namespace

Error conv2d_add_int8_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(const quantized::Int8ConvArgs a, conv_args(args));
  TE_ASSIGN_OR_RETURN(const Tensor* residual, tensor_arg(args, 15, "residual"));
  quantized::Int8ConvProblem p;
  TE_RETURN_IF_ERROR(quantized::prepare_int8_conv(a, &p, kOp));
  TE_RETURN_IF_ERROR(add_params(args, a, &p));
  TE_RETURN_IF_ERROR(check_residual(*residual, *a.out));
  p.residual = residual->data_as<int8_t>();
  return quantized::run_int8_conv(ctx, p, kOp);
}

}  // namespace native
}  // namespace torchedge
