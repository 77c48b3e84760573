// torchedge::linear_dynamic_int8_packed_split.out(Tensor input, Tensor weight_packed,
//     Tensor weight_scales, Tensor? bias, int[] sizes, *, Tensor(a!)[] out) -> ()
//
// Several dynamic int8 linear layers reading the same input (a transformer's
// Q, K and V), as the AOT flow merges them (fuse_sibling_linears +
// pack_dynamic_linear_weights): the input is quantized once and each layer
// j of sizes[j] output columns is written to out[j] (no concatenated output
// to split afterwards). Layer j's weight is in the strip layout of
// support/int8_gemm_f32.h on its own (its last strip padded), the layers'
// strips concatenated: weight_packed int8 [sum_j ceil(sizes[j] / 16),
// round_up(K, 2) * 16]; weight_scales float32 [sum sizes] and bias float32
// [sum sizes] or None, concatenated. out[j] float32 [..., sizes[j]].
// Numerics: each out[j] is exactly linear_dynamic_int8_packed.out of layer
// j (the same quantized input, the same integer sums and epilogue). Eager
// reference: python/torchedge/quantization/int8_linear_ops.py.
// Scratch: the quantized input once plus the GEMM scratch of all columns;
// the layers' GEMMs run as one split over the thread pool.
#include "kernels/quantized/support/dynamic_linear.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "linear_dynamic_int8_packed_split.out";
// Merged layers per call: the segments live on the stack (no heap in execute).
constexpr size_t kMaxSegments = quantized::kMaxDynamicLinearSegments;

Error check_args(const Tensor& in, const Tensor& w, const Tensor& scales, const Tensor* bias,
                 Span<const int64_t> sizes, Span<Tensor* const> outs) {
  TE_CHECK_OR_RETURN(sizes.size() >= 1 && sizes.size() <= kMaxSegments, Error::InvalidArgument,
                     "%s: between 1 and %zu sizes, got %zu", kOp, kMaxSegments, sizes.size());
  TE_CHECK_OR_RETURN(outs.size() == sizes.size(), Error::InvalidArgument,
                     "%s: %zu sizes but %zu out tensors", kOp, sizes.size(), outs.size());
  int64_t n = 0, strips = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    TE_CHECK_OR_RETURN(sizes[j] >= 0, Error::InvalidArgument, "%s: sizes[%zu] = %lld < 0", kOp,
                       j, static_cast<long long>(sizes[j]));
    n += sizes[j];
    strips += (sizes[j] + quantized::kInt8GemmStrip - 1) / quantized::kInt8GemmStrip;
    TE_RETURN_IF_ERROR(quantized::check_dynamic_linear_out(*outs[j], kOp));
  }
  TE_RETURN_IF_ERROR(quantized::check_dynamic_linear_operands(in, scales, n, bias, kOp));
  return quantized::check_packed_weight(w, strips, in.size(-1), kOp);
}

}  // namespace

Error linear_dynamic_int8_packed_split_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 1, "weight_packed"));
  TE_ASSIGN_OR_RETURN(const Tensor* w_scales, tensor_arg(args, 2, "weight_scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 3, "bias"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> sizes, int_list_arg(args, 4, "sizes"));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> outs, tensor_list_arg(args, 5, "out"));
  TE_RETURN_IF_ERROR(check_args(*in, *w, *w_scales, bias, sizes, outs));
  quantized::DynamicLinearSegment segments[kMaxSegments];
  const int64_t strip_elements =
      quantized::int8_gemm_x_stride(in->size(-1)) * quantized::kInt8GemmStrip;
  int64_t col = 0, strip = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    segments[j] = {w->data_as<int8_t>() + strip * strip_elements, true, sizes[j],
                   w_scales->data_as<float>() + col,
                   bias != nullptr ? bias->data_as<float>() + col : nullptr, outs[j]};
    col += sizes[j];
    strip += (sizes[j] + quantized::kInt8GemmStrip - 1) / quantized::kInt8GemmStrip;
  }
  return quantized::run_dynamic_linear(ctx, *in, {segments, sizes.size()}, kOp);
}

}  // namespace native
}  // namespace torchedge
