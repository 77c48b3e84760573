// torchedge/kernels/quantized/int8_conv_operands.h
//
// The boxed arguments that torchedge::conv2d_int8.out and
// torchedge::conv2d_add_int8.out share, at the same positions:
//   0 input, 1 input_scale, 2 input_zero_point, 3 weight_panels,
//   4 weight_scales, 5 bias (Tensor?), 6 kernel_size, 7 stride, 8 padding,
//   9 dilation, 10 groups
// (the output quantization and `out` follow, named differently per op),
// and last before `out` an optional `int weight_bits=8` (added after the
// first int8 files were written: a file without it loads as 8 bits), then
// an optional `Tensor? weight_sums=None` (int32 [Cout], each output
// channel's weight sum, stored by the fusion; files without it load with
// none, and the dot-product path sums the panels per call).
// Include only from those two op files.
#pragma once

#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace native {

/// Reads arguments 0-10 into `a` (a type or arity error names the argument).
inline Error read_int8_conv_operands(Span<EValue*> args, quantized::Int8ConvArgs* a) {
  TE_ASSIGN_OR_RETURN(a->input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a->input_scale, double_arg(args, 1, "input_scale"));
  TE_ASSIGN_OR_RETURN(a->input_zero_point, int_arg(args, 2, "input_zero_point"));
  TE_ASSIGN_OR_RETURN(a->weight_panels, tensor_arg(args, 3, "weight_panels"));
  TE_ASSIGN_OR_RETURN(a->weight_scales, tensor_arg(args, 4, "weight_scales"));
  TE_ASSIGN_OR_RETURN(a->bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(a->kernel_size, int_list_arg(args, 6, "kernel_size"));
  TE_ASSIGN_OR_RETURN(a->stride, int_list_arg(args, 7, "stride"));
  TE_ASSIGN_OR_RETURN(a->padding, int_list_arg(args, 8, "padding"));
  TE_ASSIGN_OR_RETURN(a->dilation, int_list_arg(args, 9, "dilation"));
  TE_ASSIGN_OR_RETURN(a->groups, int_arg(args, 10, "groups"));
  return Error::Ok;
}

/// The argument count, with the trailing optionals or without: `without`
/// (weight_bits 8, no weight_sums), `without` + 1 (weight_bits from
/// args[without - 1]) or `without` + 2 (weight_bits, then weight_sums, a
/// Tensor or None, from args[without]); out is then args[count - 1]. Any
/// other count is InvalidArgument.
inline Result<size_t> read_int8_conv_weight_bits(Span<EValue*> args, size_t without,
                                                 quantized::Int8ConvArgs* a) {
  a->weight_bits = 8;
  a->weight_sums = nullptr;
  if (args.size() != without + 1 && args.size() != without + 2) {
    TE_RETURN_IF_ERROR(expect_arg_count(args, without));
    return without;
  }
  TE_ASSIGN_OR_RETURN(a->weight_bits, int_arg(args, without - 1, "weight_bits"));
  if (args.size() == without + 1) return without + 1;
  TE_ASSIGN_OR_RETURN(a->weight_sums, optional_tensor_arg(args, without, "weight_sums"));
  return without + 2;
}

}  // namespace native
}  // namespace torchedge
