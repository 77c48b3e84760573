// quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int zero_point,
//     int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
//     Tensor(a!) out)
// quantized_decomposed::dequantize_per_tensor.tensor_out(Tensor input, Tensor scale,
//     Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *,
//     ScalarType? out_dtype=None, Tensor(a!) out)
//
// out = (input.to(out_dtype) - zero_point) * scale, each step rounded to
// out_dtype as in eager (float32 when out_dtype is None). input's dtype
// must equal `dtype`; quant_min/quant_max are metadata (eager ignores them
// here, so they are not range-checked either). int8/uint8 -> float32 takes
// the bit-exact SIMD path of support/per_tensor_simd.h where the CPU has one.
#include <type_traits>

#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/per_tensor_simd.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

Error dequantize_per_tensor_impl(const Tensor& in, double scale, double zero_point,
                                 Span<EValue*> args, Tensor& out, const char* op) {
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 3, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 4, "quant_max"));
  (void)qmin;
  (void)qmax;
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 5, "dtype", op));
  TE_ASSIGN_OR_RETURN(ScalarType out_dtype, quantized::float_dtype_arg(args, 6, "out_dtype", op,
                                                                        ScalarType::Float));
  TE_CHECK_OR_RETURN(in.dtype() == qtype, Error::InvalidType,
                     "%s: Expecting input to have dtype: %s, but got %s", op, to_string(qtype),
                     to_string(in.dtype()));
  TE_RETURN_IF_ERROR(expect_dtype(out, out_dtype, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_same_layout(in, out, op));
  TE_RETURN_IF_ERROR(resize_like(out, in));
  return quantized::switch_dequantize_types(qtype, out_dtype, op, [&](auto q_tag, auto out_tag) {
    using Q = decltype(q_tag);
    using Out = decltype(out_tag);
    if constexpr (std::is_same<Out, float>::value &&
                  (std::is_same<Q, int8_t>::value || std::is_same<Q, uint8_t>::value)) {
      if (quantized::dequantize_per_tensor_simd(in.data_as<Q>(), out.mutable_data_as<float>(),
                                                in.numel(), scale, zero_point)) {
        return Error::Ok;
      }
    }
    quantized::dequantize_run_in_out_dtype<Q, Out>(in.data_as<Q>(), out.mutable_data_as<Out>(),
                                                   in.numel(), scale, zero_point);
    return Error::Ok;
  });
}

}  // namespace

Error dequantize_per_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "dequantize_per_tensor.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(double scale, double_arg(args, 1, "scale"));
  TE_ASSIGN_OR_RETURN(int64_t zero_point, int_arg(args, 2, "zero_point"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  return dequantize_per_tensor_impl(*in, scale, static_cast<double>(zero_point), args, *out, kOp);
}

Error dequantize_per_tensor_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "dequantize_per_tensor.tensor_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(quantized::ScalarQparams q, quantized::one_element_qparams_args(args, kOp));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  return dequantize_per_tensor_impl(*in, q.scale, q.zero_point, args, *out, kOp);
}

}  // namespace native
}  // namespace torchedge
