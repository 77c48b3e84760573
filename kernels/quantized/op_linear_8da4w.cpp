// torchedge::linear_8da4w.out(Tensor input, Tensor packed_weight, Tensor scales,
//     Tensor? zero_points, int group_size, Tensor? bias, *, Tensor(a!) out)
//
// "8-bit dynamic activations, 4-bit weights": each input row is quantized
// to asymmetric int8 exactly as the eager reference does
// (support/activation_quant.h), then
//   out[m, n] = x_scale[m] * sum_g w_scale[n, g] * I[m, n, g] + bias[n],
//   I = sum_{k in g} (xq[m, k] - x_zp[m]) * (q[n, k] - w_zp[n, g])   (exact int32)
// which equals eager's ((xq - zp) * scale) @ dequant(W)^T + bias up to
// float rounding (tests: relative 1e-5 of sum |x * w|). Integer dot
// products: AVX2 maddubs/madd, AVX-512 VNNI vpdpbusd (chosen at run time),
// portable scalar otherwise. Scratch (temp allocator): M * (K + 4 * K/g + 8)
// bytes for the quantized rows.
#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int4_dispatch.h"
#include "kernels/quantized/support/int4_linear_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error linear_8da4w_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linear_8da4w.out";
  TE_ASSIGN_OR_RETURN(quantized::Int4LinearCall call,
                      quantized::parse_int4_linear_args(args, kOp));
  const quantized::Int4Weight& w = call.weight;
  if (call.m == 0 || w.n == 0) return Error::Ok;
  const int64_t groups = w.k / w.group_size;
  const size_t m = static_cast<size_t>(call.m);
  int8_t* q = static_cast<int8_t*>(ctx.allocate_temp(m * static_cast<size_t>(w.k) + 1, 64));
  float* scales = static_cast<float*>(ctx.allocate_temp(m * sizeof(float)));
  int32_t* zero_points = static_cast<int32_t*>(ctx.allocate_temp(m * sizeof(int32_t)));
  int32_t* group_sums = static_cast<int32_t*>(
      ctx.allocate_temp(m * static_cast<size_t>(groups) * sizeof(int32_t) + sizeof(int32_t)));
  TE_CHECK_OR_RETURN(q != nullptr && scales != nullptr && zero_points != nullptr &&
                         group_sums != nullptr,
                     Error::MemoryAllocationFailed,
                     "%s: needs about %zu bytes of kernel scratch (temp allocator)", kOp,
                     m * static_cast<size_t>(w.k + 4 * groups + 8));
  if (w.k == 0) {  // no features: the output is the bias
    for (size_t r = 0; r < m; ++r) {
      for (int64_t n = 0; n < w.n; ++n) call.out[r * w.n + n] = call.bias ? call.bias[n] : 0.0f;
    }
    return Error::Ok;
  }
  for (size_t r = 0; r < m; ++r) {
    quantized::quantize_row_int8_per_token(call.x + r * w.k, w.k, w.group_size, q + r * w.k,
                                           &scales[r], &zero_points[r], group_sums + r * groups);
  }
  quantized::run_int8_int4_linear({q, scales, zero_points, group_sums, call.m}, w, call.bias,
                                  call.out);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
