// torchedge::conv2d_int8.out(Tensor input, float input_scale, int input_zero_point,
//     Tensor weight_panels, Tensor weight_scales, Tensor? bias, int[] kernel_size,
//     int[] stride, int[] padding, int[] dilation, int groups, float output_scale,
//     int output_zero_point, int output_min, int output_max, int weight_bits=8,
//     Tensor? weight_sums=None, *, Tensor(a!) out)
//
// The fused form of PT2E's static int8 convolution
//   quantize_per_tensor(act(conv2d(dequantize_per_tensor(input),
//                                  dequantize_per_channel(W), bias, ...)))
// with act (identity / relu / relu6 / hardtanh) folded into [output_min,
// output_max]. input int8 [N, Cin, H, W] (row-major), weight_panels int8
// [groups, ceil(Cout_g / 6), ceil(K / 4), 6, 4] in the panel layout of
// support/int8_conv.h (K = Cin/groups * KH * KW, PyTorch's (c, kh, kw)
// order), weight_scales float32 [Cout] (Cout comes from here), bias float32
// [Cout] or None, out int8 [N, Cout, OH, OW]. Numerics: support/int8_conv.h
// (exact int32 sums, requantize() epilogue; every ISA bit-identical; equal
// to the unfused reference up to its float summation order). Eager
// reference: python/torchedge/quantization/int8_conv_ops.py. weight_bits: 7
// when every weight is in [-64, 63] (the faster AVX2 path; the result is
// the same), else 8; absent in files written before it (then 8).
// weight_sums: int32 [Cout], sum_k of each output channel's weights (the
// fusion stores it; the dot-product path starts its sums at
// -input_zero_point * weight_sums instead of summing the panels per call);
// None or absent: summed per call. The output does not depend on it.
// Scratch (temp allocator, AVX2): a zero-point-padded copy of one image
// plus per worker the widened weight block, one packed strip block and the
// int32 sums of up to 8 strips (int8_conv_scratch_bytes).
#include "kernels/quantized/int8_conv_operands.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/overlapping_input.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
constexpr const char* kOp = "conv2d_int8.out";
}  // namespace

Error conv2d_int8_out(KernelContext& ctx, Span<EValue*> args) {
  quantized::Int8ConvArgs a{};
  TE_ASSIGN_OR_RETURN(const size_t count, read_int8_conv_weight_bits(args, 16, &a));
  TE_RETURN_IF_ERROR(read_int8_conv_operands(args, &a));
  TE_ASSIGN_OR_RETURN(a.output_scale, double_arg(args, 11, "output_scale"));
  TE_ASSIGN_OR_RETURN(a.output_zero_point, int_arg(args, 12, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(a.output_min, int_arg(args, 13, "output_min"));
  TE_ASSIGN_OR_RETURN(a.output_max, int_arg(args, 14, "output_max"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, count - 1, "out"));
  quantized::Int8ConvProblem p;
  TE_RETURN_IF_ERROR(quantized::prepare_int8_conv(a, &p, kOp));
  // out may share the input's bytes (the planner's in-place rule).
  TE_ASSIGN_OR_RETURN(p.input, quantized::input_apart_from_out(ctx, *a.input, *a.out, kOp));
  return quantized::run_int8_conv(ctx, p, kOp);
}

}  // namespace native
}  // namespace torchedge
