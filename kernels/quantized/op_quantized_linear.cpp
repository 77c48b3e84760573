// torchedge::quantized_linear.out(Tensor input_q, float input_scale, int input_zero_point,
//     Tensor weight_q, Tensor weight_scales, Tensor? bias, float out_scale,
//     int out_zero_point, int out_quant_min, int out_quant_max,
//     Tensor? weight_sums=None, *, Tensor(a!) out)
//
// The fused form of dequantize_per_tensor -> linear -> quantize_per_tensor
// with int8 per-tensor activations and int8 symmetric per-channel weights:
//   acc = sum_k (input_q - input_zero_point) * weight_q[n, k]        (int32, exact)
//   y   = float(acc) * (input_scale * weight_scales[n]) + bias[n]   (float32)
//   out = clamp(round_half_even(y * float(1 / out_scale)) + out_zero_point,
//               out_quant_min, out_quant_max)                      (int8)
// input_q int8 [..., K] (row-major), weight_q int8 [N, K], weight_scales
// float32 [N], bias float32 [N] or None, weight_sums int32 [N] (sum_k
// weight_q[n, k], written by the fusion; optional: the dot-product paths sum
// the weights per call without it, the others do not read it), out int8
// [..., N].
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
#include "kernels/quantized/support/quantized_linear_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error quantized_linear_out(KernelContext& ctx, Span<EValue*> args) {
  quantized::Int8GemmProblem p;
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) {
    // The raw activations (support/int8_gemm_dot.h): no int16 copy.
    QuantizedLinearInput raw;
    TE_RETURN_IF_ERROR(prepare_quantized_linear(ctx, args, &p, &raw));
    if (p.m == 0 || p.n == 0) return Error::Ok;
    // SMMLA where the CPU has it (i8mm), else sdot; the same output.
    const bool i8mm = optimized::best_arm_isa() >= optimized::ArmIsa::kI8mm;
    const size_t bytes = i8mm ? quantized::int8_gemm_i8mm_scratch_bytes(p.m, p.n, p.k)
                              : quantized::int8_gemm_dot_scratch_bytes(p.m, p.n, p.k);
    void* scratch = ctx.allocate_temp(bytes, 64);
    TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                       "quantized_linear.out: needs %zu bytes of kernel scratch (temp allocator)",
                       bytes);
    if (i8mm) {
      quantized::run_int8_gemm_i8mm(p, raw.x, raw.zero_point, raw.weight_sums, scratch);
    } else {
      quantized::run_int8_gemm_dot(p, raw.x, raw.zero_point, raw.weight_sums, scratch);
    }
    return Error::Ok;
  }
#endif
  TE_RETURN_IF_ERROR(prepare_quantized_linear(ctx, args, &p));
  if (p.m > 0 && p.n > 0) quantized::run_int8_gemm_requant(p);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
