// quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point,
//     int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
// quantized_decomposed::quantize_per_tensor.tensor_out(Tensor input, Tensor scale,
//     Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
//
// out = clamp(round(input * float(1.0 / scale)) + zero_point, quant_min, quant_max)
// as eager computes it (support/affine.h). The .tensor overload reads its
// one-element scale/zero_point tensors as eager's .item() does. scale == 0
// is an error (eager raises ZeroDivisionError); a negative or non-finite
// scale is computed as eager does. float32 -> int8/uint8 takes the bit-exact
// SIMD path of support/per_tensor_simd.h where the CPU has one.
#include <type_traits>

#include "kernels/quantized/support/per_tensor_simd.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/quantize_loops.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

using quantized::QuantizeParams;
using quantized::RoundOrder;

Error quantize_per_tensor_impl(const Tensor& in, double scale, double zero_point,
                               Span<EValue*> args, Tensor& out, const char* op) {
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 3, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 4, "quant_max"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 5, "dtype", op));
  TE_RETURN_IF_ERROR(quantized::expect_quantizable_input(in, op));
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, qtype, op));
  TE_CHECK_OR_RETURN(scale != 0.0, Error::InvalidArgument, "%s: scale must not be 0", op);
  TE_RETURN_IF_ERROR(expect_dtype(out, qtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_same_layout(in, out, op));
  TE_RETURN_IF_ERROR(resize_like(out, in));
  // Python computes 1.0 / scale in double; the float32 multiply then uses it
  // rounded to float (ATen's opmath for a float32 tensor times a scalar).
  const QuantizeParams<float> p{static_cast<float>(1.0 / scale), static_cast<float>(zero_point),
                                static_cast<float>(qmin), static_cast<float>(qmax)};
  return quantized::switch_quantize_types(in.dtype(), qtype, op, [&](auto in_tag, auto q_tag) {
    using In = decltype(in_tag);
    using Q = decltype(q_tag);
    if constexpr (std::is_same<In, float>::value &&
                  (std::is_same<Q, int8_t>::value || std::is_same<Q, uint8_t>::value)) {
      if (quantized::quantize_per_tensor_simd(in.data_as<float>(), out.mutable_data_as<Q>(),
                                              in.numel(), p)) {
        return Error::Ok;
      }
    }
    quantized::quantize_run<In, Q, float, RoundOrder::kRoundThenShift>(
        in.data_as<In>(), out.mutable_data_as<Q>(), in.numel(), p);
    return Error::Ok;
  });
}

}  // namespace

Error quantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "quantize_per_tensor.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(double scale, double_arg(args, 1, "scale"));
  TE_ASSIGN_OR_RETURN(int64_t zero_point, int_arg(args, 2, "zero_point"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  return quantize_per_tensor_impl(*in, scale, static_cast<double>(zero_point), args, *out, kOp);
}

Error quantize_per_tensor_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "quantize_per_tensor.tensor_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(quantized::ScalarQparams q, quantized::one_element_qparams_args(args, kOp));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  return quantize_per_tensor_impl(*in, q.scale, q.zero_point, args, *out, kOp);
}

}  // namespace native
}  // namespace torchedge
