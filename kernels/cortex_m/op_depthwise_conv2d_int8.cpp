// torchedge::depthwise_conv2d_int8.out on Cortex-M (kernels/cortex_m): the
// arguments and checks of kernels/quantized/op_depthwise_conv2d_int8.cpp,
// the compute of support/int8_depthwise_dsp.h, bit for bit the quantized
// library's output.
#include "kernels/cortex_m/support/int8_depthwise_dsp.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace cortex_m {

namespace {
constexpr const char* kOp = "depthwise_conv2d_int8.out";
}  // namespace

Error depthwise_conv2d_int8_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 14));
  quantized::Int8DepthwiseArgs a{};
  TE_ASSIGN_OR_RETURN(a.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a.input_scale, double_arg(args, 1, "input_scale"));
  TE_ASSIGN_OR_RETURN(a.input_zero_point, int_arg(args, 2, "input_zero_point"));
  TE_ASSIGN_OR_RETURN(a.weight, tensor_arg(args, 3, "weight"));
  TE_ASSIGN_OR_RETURN(a.weight_scales, tensor_arg(args, 4, "weight_scales"));
  TE_ASSIGN_OR_RETURN(a.bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(a.stride, int_list_arg(args, 6, "stride"));
  TE_ASSIGN_OR_RETURN(a.padding, int_list_arg(args, 7, "padding"));
  TE_ASSIGN_OR_RETURN(a.dilation, int_list_arg(args, 8, "dilation"));
  TE_ASSIGN_OR_RETURN(a.output_scale, double_arg(args, 9, "output_scale"));
  TE_ASSIGN_OR_RETURN(a.output_zero_point, int_arg(args, 10, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(a.output_min, int_arg(args, 11, "output_min"));
  TE_ASSIGN_OR_RETURN(a.output_max, int_arg(args, 12, "output_max"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, 13, "out"));
  quantized::Int8DepthwiseProblem p;
  TE_RETURN_IF_ERROR(quantized::prepare_int8_depthwise(a, &p, kOp));
  if (p.planes() == 0) return Error::Ok;
  const size_t bytes = int8_depthwise_dsp_scratch_bytes(p);
  void* scratch = ctx.allocate_temp(bytes, 4);
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp, bytes);
  int8_depthwise_dsp(p, scratch);
  return Error::Ok;
}

}  // namespace cortex_m
}  // namespace torchedge
