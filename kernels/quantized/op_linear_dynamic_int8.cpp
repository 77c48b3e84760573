// torchedge::linear_dynamic_int8.out(Tensor input, Tensor weight_q, Tensor weight_scales,
//     Tensor? bias, *, Tensor(a!) out)
//
// The fused form of the dynamic int8 linear that PT2E's dynamic flow emits
// (choose_qparams.tensor -> quantize_per_tensor.tensor ->
// dequantize_per_tensor.tensor on the activation, dequantize_per_channel of
// a symmetric int8 weight, float linear); its eager reference is
// python/torchedge/quantization/int8_linear_ops.py:
//   scale, zp = choose_qparams(input, -128, 127, float32 eps)   (per tensor, bit-exact)
//   xq  = clamp(round(input * float(1.0 / scale)) + zp, -128, 127)  (bit-exact)
//   acc = sum_k (xq - zp) * weight_q[n, k]                      (int32, exact)
//   out = float(acc) * (scale * weight_scales[n]) + bias[n]     (float32)
// input float32 [..., K] (row-major, non-empty), weight_q int8 [N, K],
// weight_scales float32 [N], bias float32 [N] or None, out float32 [..., N].
// Numerics vs the reference: the integers are the reference's; the
// reference rounds every float product and partial sum of its float
// linear, this kernel only the final scaling, so outputs differ by float
// rounding (relative ~K * 2^-24 of the row's magnitude) only.
// Scratch (temp allocator): 2 * round_up(M, 6) * round_up(K, 2) bytes of activations
// plus int8_gemm_f32_scratch_bytes (AVX2: per thread 32 * K + 64 * M bytes).
#include "kernels/quantized/support/dynamic_linear.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "linear_dynamic_int8.out";

Error check_args(const Tensor& in, const Tensor& w, const Tensor& scales, const Tensor* bias,
                 const Tensor& out) {
  TE_CHECK_OR_RETURN(in.dim() >= 1 && w.dtype() == ScalarType::Char && w.dim() == 2 &&
                         w.size(1) == in.size(-1),
                     Error::InvalidArgument,
                     "%s: weight_q must be int8 [N, %d] (K of input), got %s %d-d", kOp,
                     in.dim() >= 1 ? in.size(-1) : 0, to_string(w.dtype()), w.dim());
  TE_RETURN_IF_ERROR(quantized::check_dynamic_linear_operands(in, scales, w.size(0), bias, kOp));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(w, "weight_q", kOp));
  return quantized::check_dynamic_linear_out(out, kOp);
}

}  // namespace

Error linear_dynamic_int8_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 1, "weight_q"));
  TE_ASSIGN_OR_RETURN(const Tensor* w_scales, tensor_arg(args, 2, "weight_scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 3, "bias"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(check_args(*in, *w, *w_scales, bias, *out));
  const quantized::DynamicLinearSegment segment{
      w->data_as<int8_t>(), false, w->size(0), w_scales->data_as<float>(),
      bias != nullptr ? bias->data_as<float>() : nullptr, out};
  return quantized::run_dynamic_linear(ctx, *in, {&segment, 1}, kOp);
}

}  // namespace native
}  // namespace torchedge
