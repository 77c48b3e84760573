// torchedge::depthwise_conv2d_int8.out(Tensor input, float input_scale, int input_zero_point,
//     Tensor weight, Tensor weight_scales, Tensor? bias, int[] stride, int[] padding,
//     int[] dilation, float output_scale, int output_zero_point, int output_min,
//     int output_max, *, Tensor(a!) out)
//
// torchedge::conv2d_int8.out with groups == Cin == Cout == C (channel
// multiplier 1) and the weight in PyTorch's own layout: the fused form of
// PT2E's static int8 depthwise convolution
//   quantize_per_tensor(act(conv2d(dequantize_per_tensor(input),
//                                  dequantize_per_channel(W), bias, groups=C)))
// with act (identity / relu / relu6 / hardtanh) folded into [output_min,
// output_max]. input int8 [N, C, H, W] (row-major), weight int8
// [C, 1, KH, KW] (row-major), weight_scales float32 [C], bias float32 [C]
// or None, out int8 [N, C, OH, OW]. Numerics: support/int8_depthwise.h
// (exact int32 sums, requantize() epilogue; every ISA bit-identical).
// Eager reference: python/torchedge/quantization/int8_conv_ops.py.
// Scratch (temp allocator, AVX2; int8_depthwise_scratch_bytes): per worker
// thread one padded input plane widened to int16 and the tap tables (about
// 33 KiB for a 112x112 map, 1 KiB for 14x14), or on the channels-last loops
// a window of padded rows x 32 channels in int16 and the band's weights
// (about 18 KiB for 14x14, 58 KiB for 28x28, at most ~130 KiB for 3x3).
#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/overlapping_input.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
constexpr const char* kOp = "depthwise_conv2d_int8.out";
}  // namespace

Error depthwise_conv2d_int8_out(KernelContext& ctx, Span<EValue*> args) {
  quantized::Int8DepthwiseArgs a;
  TE_RETURN_IF_ERROR(quantized::read_int8_depthwise_args(args, &a));
  quantized::Int8DepthwiseProblem p;
  TE_RETURN_IF_ERROR(quantized::prepare_int8_depthwise(a, &p, kOp));
  if (p.planes() == 0) return Error::Ok;
  // out may share the input's bytes (the planner's in-place rule).
  TE_ASSIGN_OR_RETURN(p.input, quantized::input_apart_from_out(ctx, *a.input, *a.out, kOp));
  const size_t bytes = quantized::int8_depthwise_scratch_bytes(p);
  void* scratch = nullptr;
  if (bytes > 0) {
    scratch = ctx.allocate_temp(bytes, 64);
    TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                       "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp, bytes);
  }
  quantized::run_int8_depthwise(p, scratch);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
