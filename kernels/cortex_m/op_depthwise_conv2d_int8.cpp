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
  quantized::Int8DepthwiseArgs a;
  TE_RETURN_IF_ERROR(quantized::read_int8_depthwise_args(args, &a));
  quantized::Int8DepthwiseProblem p;
  TE_RETURN_IF_ERROR(quantized::prepare_int8_depthwise(a, &p, kOp));
  if (p.planes() == 0) return Error::Ok;
  // In place only where the loop order makes it exact (the support header).
  const bool same_plane = p.out_height * p.out_width == p.height * p.width;
  TE_CHECK_OR_RETURN(!bytes_overlap(*a.input, *a.out) ||
                         (a.input->data() == a.out->data() && same_plane),
                     Error::InvalidArgument,
                     "%s: out overlaps the input, which this kernel allows only for %s", kOp,
                     "an output plane of the input plane size at the same address");
  const size_t bytes = int8_depthwise_dsp_scratch_bytes(p);
  void* scratch = ctx.allocate_temp(bytes, 4);
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp, bytes);
  int8_depthwise_dsp(p, scratch);
  return Error::Ok;
}

}  // namespace cortex_m
}  // namespace torchedge
