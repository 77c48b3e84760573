// torchedge::quantized_linear.out(Tensor input_q, float input_scale, int input_zero_point,
//     Tensor weight_q, Tensor weight_scales, Tensor? bias, float out_scale,
//     int out_zero_point, int out_quant_min, int out_quant_max, *, Tensor(a!) out)
//
// The fused form of dequantize_per_tensor -> linear -> quantize_per_tensor
// with int8 per-tensor activations and int8 symmetric per-channel weights:
//   acc = sum_k (input_q - input_zero_point) * weight_q[n, k]        (int32, exact)
//   y   = float(acc) * (input_scale * weight_scales[n]) + bias[n]   (float32)
//   out = clamp(round_half_even(y * float(1 / out_scale)) + out_zero_point,
//               out_quant_min, out_quant_max)                      (int8)
// input_q int8 [..., K] (row-major), weight_q int8 [N, K], weight_scales
// float32 [N], bias float32 [N] or None, out int8 [..., N].
// Numerics vs the unfused reference (dequantize, float linear, quantize):
// the integer sum is exact here while the reference rounds each float
// product and partial sum, so y differs by float rounding only and the
// output differs by at most one quantization step, only where the
// reference's y * (1 / out_scale) lies within that rounding of a .5 tie.
// AVX2: int16 madd with 4 rows per weight pass; AArch64 with dot-product:
// sdot on the raw activations (support/int8_gemm_dot.h); portable scalar
// otherwise.
// Scratch (temp allocator): 2 * M * K bytes (the dot-product path: the
// packed activations and N column sums).
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/quantized/support/int8_gemm.h"
#include "kernels/quantized/support/int8_gemm_dot.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "quantized_linear.out";

Error check_weights(const Tensor& in, const Tensor& w, const Tensor& scales, const Tensor* bias) {
  TE_CHECK_OR_RETURN(in.dtype() == ScalarType::Char && in.dim() >= 1, Error::InvalidArgument,
                     "%s: input_q must be int8 of rank >= 1, got %s %d-d", kOp,
                     to_string(in.dtype()), in.dim());
  TE_CHECK_OR_RETURN(w.dtype() == ScalarType::Char && w.dim() == 2 && w.size(1) == in.size(-1),
                     Error::InvalidArgument,
                     "%s: weight_q must be int8 [N, %d] (K of input_q), got %s %d-d", kOp,
                     in.size(-1), to_string(w.dtype()), w.dim());
  TE_CHECK_OR_RETURN(scales.dtype() == ScalarType::Float && scales.numel() == static_cast<size_t>(w.size(0)),
                     Error::InvalidArgument, "%s: weight_scales must be float32 [%d]", kOp,
                     w.size(0));
  if (bias != nullptr) {
    TE_CHECK_OR_RETURN(bias->dtype() == ScalarType::Float &&
                           bias->numel() == static_cast<size_t>(w.size(0)),
                       Error::InvalidArgument, "%s: bias must be float32 [%d]", kOp, w.size(0));
  }
  TE_RETURN_IF_ERROR(quantized::expect_row_major(in, "input_q", kOp));
  return quantized::expect_row_major(w, "weight_q", kOp);
}

}  // namespace

Error quantized_linear_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 11));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input_q"));
  TE_ASSIGN_OR_RETURN(double in_scale, double_arg(args, 1, "input_scale"));
  TE_ASSIGN_OR_RETURN(int64_t in_zp, int_arg(args, 2, "input_zero_point"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 3, "weight_q"));
  TE_ASSIGN_OR_RETURN(const Tensor* w_scales, tensor_arg(args, 4, "weight_scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(double out_scale, double_arg(args, 6, "out_scale"));
  TE_ASSIGN_OR_RETURN(int64_t out_zp, int_arg(args, 7, "out_zero_point"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 8, "out_quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 9, "out_quant_max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 10, "out"));
  TE_RETURN_IF_ERROR(check_weights(*in, *w, *w_scales, bias));
  TE_CHECK_OR_RETURN(in_zp >= -128 && in_zp <= 127, Error::InvalidArgument,
                     "%s: input_zero_point must be in [-128, 127], got %lld", kOp,
                     static_cast<long long>(in_zp));
  TE_CHECK_OR_RETURN(out_scale != 0.0, Error::InvalidArgument, "%s: out_scale must not be 0", kOp);
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, ScalarType::Char, kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Char, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  const int64_t k = in->size(-1), n = w->size(0);
  int64_t sizes[kTensorDimensionLimit];
  int64_t m = 1;
  for (int d = 0; d + 1 < in->dim(); ++d) {
    sizes[d] = in->size(d);
    m *= in->size(d);
  }
  sizes[in->dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(in->dim())}));
  if (m == 0 || n == 0) return Error::Ok;
  quantized::Int8GemmProblem p;
  p.w = w->data_as<int8_t>();
  p.w_scales = w_scales->data_as<float>();
  p.bias = bias != nullptr ? bias->data_as<float>() : nullptr;
  p.m = m;
  p.n = n;
  p.k = k;
  p.in_scale = static_cast<float>(in_scale);
  p.inv_out_scale = static_cast<float>(1.0 / out_scale);
  p.out_zero_point = static_cast<float>(out_zp);
  p.quant_min = static_cast<float>(qmin);
  p.quant_max = static_cast<float>(qmax);
  p.out = out->mutable_data_as<int8_t>();
  const int8_t* xq = in->data_as<int8_t>();
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) {
    // The raw activations (support/int8_gemm_dot.h): no int16 copy.
    const size_t bytes = quantized::int8_gemm_dot_scratch_bytes(m, n, k);
    void* scratch = ctx.allocate_temp(bytes, 64);
    TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                       "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp, bytes);
    quantized::run_int8_gemm_dot(p, xq, static_cast<int32_t>(in_zp), scratch);
    return Error::Ok;
  }
#endif
  const size_t count = static_cast<size_t>(m * k);
  int16_t* shifted = static_cast<int16_t*>(ctx.allocate_temp(count * sizeof(int16_t) + 2, 64));
  TE_CHECK_OR_RETURN(shifted != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp,
                     count * sizeof(int16_t));
  for (size_t i = 0; i < count; ++i) shifted[i] = static_cast<int16_t>(xq[i] - in_zp);
  p.x = shifted;
  quantized::run_int8_gemm_requant(p);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
