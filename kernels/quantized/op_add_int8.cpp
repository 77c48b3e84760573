// torchedge::add_int8.out(Tensor a, float a_scale, int a_zero_point, Tensor b, float b_scale,
//     int b_zero_point, float output_scale, int output_zero_point, int output_min,
//     int output_max, *, Tensor(a!) out)
//
// The fused form of PT2E's quantized residual add
//   quantize_per_tensor(act(dequantize_per_tensor(a) + dequantize_per_tensor(b)))
// with act (identity / relu) folded into [output_min, output_max]. a, b int8
// of the same shape and dim order (no broadcasting), out int8 like a.
// Numerics: bit-exact with that composition of the registered kernels
// (support/int8_add.h). Eager reference:
// python/torchedge/quantization/int8_conv_ops.py. No scratch.
#include <cmath>

#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/int8_add.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

constexpr const char* kOp = "add_int8.out";

Error check_operands(const Tensor& a, const Tensor& b, Tensor& out) {
  TE_CHECK_OR_RETURN(a.dtype() == ScalarType::Char, Error::InvalidArgument,
                     "%s: a must be int8, got %s", kOp, to_string(a.dtype()));
  TE_CHECK_OR_RETURN(b.dtype() == ScalarType::Char, Error::InvalidArgument,
                     "%s: b must be int8, got %s", kOp, to_string(b.dtype()));
  bool same_shape = a.dim() == b.dim();
  for (int d = 0; same_shape && d < a.dim(); ++d) same_shape = a.size(d) == b.size(d);
  TE_CHECK_OR_RETURN(same_shape, Error::InvalidArgument,
                     "%s: a and b must have the same shape (no broadcasting), got %d-d and %d-d "
                     "tensors of %zu and %zu elements",
                     kOp, a.dim(), b.dim(), a.numel(), b.numel());
  TE_RETURN_IF_ERROR(quantized::expect_same_layout(a, b, kOp));
  TE_RETURN_IF_ERROR(expect_dtype(out, ScalarType::Char, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_same_layout(a, out, kOp));
  return resize_like(out, a);
}

}  // namespace

Error add_int8_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 11));
  TE_ASSIGN_OR_RETURN(const Tensor* a, tensor_arg(args, 0, "a"));
  TE_ASSIGN_OR_RETURN(double a_scale, double_arg(args, 1, "a_scale"));
  TE_ASSIGN_OR_RETURN(int64_t a_zp, int_arg(args, 2, "a_zero_point"));
  TE_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(args, 3, "b"));
  TE_ASSIGN_OR_RETURN(double b_scale, double_arg(args, 4, "b_scale"));
  TE_ASSIGN_OR_RETURN(int64_t b_zp, int_arg(args, 5, "b_zero_point"));
  TE_ASSIGN_OR_RETURN(double out_scale, double_arg(args, 6, "output_scale"));
  TE_ASSIGN_OR_RETURN(int64_t out_zp, int_arg(args, 7, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(int64_t out_min, int_arg(args, 8, "output_min"));
  TE_ASSIGN_OR_RETURN(int64_t out_max, int_arg(args, 9, "output_max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 10, "out"));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(a_scale, "a_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(b_scale, "b_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(out_scale, "output_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(a_zp, "a_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(b_zp, "b_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(out_zp, "output_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_quant_range(out_min, out_max, ScalarType::Char, kOp));
  TE_RETURN_IF_ERROR(check_operands(*a, *b, *out));
  quantized::Int8AddProblem p;
  p.a = a->data_as<int8_t>();
  p.b = b->data_as<int8_t>();
  p.out = out->mutable_data_as<int8_t>();
  p.count = static_cast<int64_t>(a->numel());
  p.a_scale = a_scale;
  p.a_zero_point = static_cast<double>(a_zp);
  p.b_scale = b_scale;
  p.b_zero_point = static_cast<double>(b_zp);
  // As quantize_per_tensor builds its parameters (1.0 / scale in double).
  p.out_params = {static_cast<float>(1.0 / out_scale), static_cast<float>(out_zp),
                  static_cast<float>(out_min), static_cast<float>(out_max)};
  quantized::run_int8_add(p);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
