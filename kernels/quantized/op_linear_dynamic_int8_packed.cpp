// torchedge::linear_dynamic_int8_packed.out(Tensor input, Tensor weight_packed,
//     Tensor weight_scales, Tensor? bias, *, Tensor(a!) out)
//
// torchedge::linear_dynamic_int8.out with the weight stored in the GEMM's
// strip layout (support/int8_gemm_f32.h, int8_gemm_w_packed_index): the AOT
// flow packs constant weights at export, so the kernel skips the per-call
// transpose of each strip. Eager reference
// (python/torchedge/quantization/int8_linear_ops.py) unpacks and runs
// linear_dynamic_int8's composition; the numerics are linear_dynamic_int8's.
// input float32 [..., K] (row-major, non-empty), weight_packed int8
// [ceil(N / 16), round_up(K, 2) * 16], weight_scales float32 [N] (N comes
// from here), bias float32 [N] or None, out float32 [..., N].
// Scratch: as linear_dynamic_int8.out.
#include "kernels/quantized/support/dynamic_linear.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "linear_dynamic_int8_packed.out";

Error check_args(const Tensor& in, const Tensor& w, const Tensor& scales, const Tensor* bias,
                 const Tensor& out) {
  // N comes from the scales (the packed weight's rows are strips of 16).
  TE_CHECK_OR_RETURN(scales.dim() == 1, Error::InvalidArgument,
                     "%s: weight_scales must be float32 [N]", kOp);
  const int64_t n = scales.size(0);
  TE_RETURN_IF_ERROR(quantized::check_dynamic_linear_operands(in, scales, n, bias, kOp));
  const int64_t strips = (n + quantized::kInt8GemmStrip - 1) / quantized::kInt8GemmStrip;
  TE_RETURN_IF_ERROR(quantized::check_packed_weight(w, strips, in.size(-1), kOp));
  return quantized::check_dynamic_linear_out(out, kOp);
}

}  // namespace

Error linear_dynamic_int8_packed_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 1, "weight_packed"));
  TE_ASSIGN_OR_RETURN(const Tensor* w_scales, tensor_arg(args, 2, "weight_scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 3, "bias"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(check_args(*in, *w, *w_scales, bias, *out));
  const quantized::DynamicLinearSegment segment{
      w->data_as<int8_t>(), true, w_scales->size(0), w_scales->data_as<float>(),
      bias != nullptr ? bias->data_as<float>() : nullptr, out};
  return quantized::run_dynamic_linear(ctx, *in, {&segment, 1}, kOp);
}

}  // namespace native
}  // namespace torchedge
