// torchedge::linear_int4_weight_only.out(Tensor input, Tensor packed_weight, Tensor scales,
//     Tensor? zero_points, int group_size, Tensor? bias, *, Tensor(a!) out)
//
// out[..., n] = sum_k input[..., k] * ((q[n, k] - zp[n, k/g]) * scale[n, k/g]) + bias[n]
// in float32 (weight format and argument rules: support/int4_linear_args.h).
// Per group the kernel accumulates sum x * q, then scales it (and
// subtracts zp * scale * sum x), so the result equals eager's
// dequantize-then-linear up to float summation order (tests: relative
// 1e-5 of sum |x * w|). AVX2: int4 unpacked to floats in registers and FMA'd,
// 4 rows per weight pass; the M = 1 (decode) GEMV is the same loop.
#include "kernels/quantized/support/int4_dispatch.h"
#include "kernels/quantized/support/int4_linear_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error linear_int4_weight_only_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linear_int4_weight_only.out";
  TE_ASSIGN_OR_RETURN(quantized::Int4LinearCall call,
                      quantized::parse_int4_linear_args(args, kOp));
  const quantized::Int4Weight& w = call.weight;
  float* group_sums = nullptr;
  if (w.zero_points != nullptr && w.k > 0 && call.m > 0) {
    const int64_t groups = w.k / w.group_size;
    const size_t count = static_cast<size_t>(call.m * groups);
    group_sums = static_cast<float*>(ctx.allocate_temp(count * sizeof(float)));
    TE_CHECK_OR_RETURN(group_sums != nullptr, Error::MemoryAllocationFailed,
                       "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp,
                       count * sizeof(float));
    for (int64_t m = 0; m < call.m; ++m) {
      for (int64_t gi = 0; gi < groups; ++gi) {
        const float* x = call.x + m * w.k + gi * w.group_size;
        float sum = 0.0f;
        for (int64_t i = 0; i < w.group_size; ++i) sum += x[i];
        group_sums[m * groups + gi] = sum;
      }
    }
  }
  quantized::run_int4_linear_f32({call.x, group_sums, call.m}, w, call.bias, call.out);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
