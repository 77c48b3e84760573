// torchedge::conv2d_int8.out on Cortex-M (kernels/cortex_m): the arguments
// and checks of kernels/quantized/op_conv2d_int8.cpp, the compute of
// support/int8_conv_dsp.h (SMLAD), bit for bit the quantized library's output.
#include "kernels/cortex_m/support/int8_conv_dsp.h"
#include "kernels/quantized/int8_conv_operands.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace cortex_m {

namespace {
constexpr const char* kOp = "conv2d_int8.out";
}  // namespace

Error conv2d_int8_out(KernelContext& ctx, Span<EValue*> args) {
  quantized::Int8ConvArgs a{};
  TE_ASSIGN_OR_RETURN(const size_t count, native::read_int8_conv_weight_bits(args, 16, &a));
  TE_RETURN_IF_ERROR(native::read_int8_conv_operands(args, &a));
  TE_ASSIGN_OR_RETURN(a.output_scale, double_arg(args, 11, "output_scale"));
  TE_ASSIGN_OR_RETURN(a.output_zero_point, int_arg(args, 12, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(a.output_min, int_arg(args, 13, "output_min"));
  TE_ASSIGN_OR_RETURN(a.output_max, int_arg(args, 14, "output_max"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, count - 1, "out"));
  quantized::Int8ConvProblem p;
  TE_RETURN_IF_ERROR(quantized::prepare_int8_conv(a, &p, kOp));
  // In place only where the loop order makes it exact (the support header).
  TE_CHECK_OR_RETURN(!bytes_overlap(*a.input, *a.out) ||
                         (a.input->data() == a.out->data() && int8_conv_dsp_in_place_ok(p)),
                     Error::InvalidArgument,
                     "%s: out overlaps the input, which this kernel allows only for %s", kOp,
                     "a 1x1, stride-1, unpadded convolution with Cin == Cout per group");
  const size_t bytes = int8_conv_dsp_scratch_bytes(p);
  int16_t* patch = static_cast<int16_t*>(ctx.allocate_temp(bytes, 4));
  TE_CHECK_OR_RETURN(patch != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp, bytes);
  int8_conv_dsp(p, patch);
  return Error::Ok;
}

}  // namespace cortex_m
}  // namespace torchedge
