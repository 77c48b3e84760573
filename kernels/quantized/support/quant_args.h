// torchedge/kernels/quantized/support/quant_args.h
//
// Argument checks shared by the quantize/dequantize kernels, worded like
// eager's quantized_decomposed reference (torch/ao/quantization/fx/_decomposed.py)
// so a failing call names the same rule eager would have raised:
//
//   TE_ASSIGN_OR_RETURN(ScalarType qtype, quant_dtype_arg(args, 5, "dtype", kOp));
//   TE_RETURN_IF_ERROR(check_quant_range(qmin, qmax, qtype, kOp));
//
// Quantized dtypes are eager's _INTEGER_DTYPES: uint8, int8, uint16, int16,
// int32. Float dtypes for outputs are float32, float64, float16, bfloat16.
#pragma once

#include <cstdint>

#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/scalar_type.h"

namespace torchedge {
namespace quantized {

/// True for the integer dtypes eager quantizes to.
bool is_quant_dtype(ScalarType t);

/// True for float32, float64, float16, bfloat16.
bool is_float_dtype(ScalarType t);

/// A `ScalarType` argument that must be a quantized dtype.
Result<ScalarType> quant_dtype_arg(Span<EValue*> args, size_t index, const char* name,
                                   const char* op);

/// A `ScalarType` (or `ScalarType?` with `fallback` for None) that must be a
/// float dtype: the output dtype of the dequantize kernels.
Result<ScalarType> float_dtype_arg(Span<EValue*> args, size_t index, const char* name,
                                   const char* op, ScalarType fallback);

/// eager's _quant_min_max_bounds_check (quant_min >= dtype min, quant_max <=
/// dtype max) plus quant_min <= quant_max, which eager leaves unchecked (its
/// clamp would then silently return quant_max everywhere).
Error check_quant_range(int64_t quant_min, int64_t quant_max, ScalarType dtype, const char* op);

/// Fails unless `t` is float32, float16 or bfloat16 (the inputs eager's
/// quantize ops accept; 16-bit floats are widened to float32 first).
Error expect_quantizable_input(const Tensor& t, const char* op);

/// Fails unless `in` and `out` have the same dim order (the elementwise
/// kernels walk both in memory order).
Error expect_same_layout(const Tensor& in, const Tensor& out, const char* op);

/// Fails unless `t` uses the default (row-major) dim order.
Error expect_row_major(const Tensor& t, const char* what, const char* op);

/// Element `i` (memory order) of an integral or floating tensor as int64 /
/// double. Used for quantization parameters, read once per channel/row.
int64_t read_int(const Tensor& t, size_t i);
double read_double(const Tensor& t, size_t i);

/// The scale and zero point of a `.tensor` overload (arguments 1 and 2:
/// one-element tensors), read as eager's .item() does: an integral zero
/// point stays an integer, a floating one keeps its fraction.
struct ScalarQparams {
  double scale;
  double zero_point;
};
Result<ScalarQparams> one_element_qparams_args(Span<EValue*> args, const char* op);

// Checks of the static int8 operators' scalar arguments (InvalidArgument
// naming `op` and `name`):
/// an [h, w] list of exactly 2 values, each >= min (stride, padding, ...);
Error check_int_pair(Span<const int64_t> v, const char* name, int64_t min, const char* op);
/// a scale that is finite and > 0 in double and once rounded to float;
Error check_positive_scale(double s, const char* name, const char* op);
/// an integer in [-128, 127] (zero points and output bounds).
Error check_int8_value(int64_t v, const char* name, const char* op);

/// Output height and width of a 2-D window (kernel, stride, padding,
/// dilation) over height x width, into *out_height / *out_width:
/// InvalidArgument naming `op` when the dilated kernel is larger than the
/// padded input.
Error window_output_size(int64_t height, int64_t width, int64_t kernel_h, int64_t kernel_w,
                         int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                         int64_t dilation_h, int64_t dilation_w, int64_t* out_height,
                         int64_t* out_width, const char* op);
/// The same on a problem whose input size and window are already set
/// (Int8ConvProblem, Int8DepthwiseProblem): fills its out_height / out_width.
template <typename Problem>
Error set_window_output_size(Problem* q, const char* op) {
  return window_output_size(q->height, q->width, q->kernel_h, q->kernel_w, q->stride_h,
                            q->stride_w, q->pad_h, q->pad_w, q->dilation_h, q->dilation_w,
                            &q->out_height, &q->out_width, op);
}

/// Copies the input/output quantization of a static int8 operator's
/// arguments (input_scale, input_zero_point, output_scale,
/// output_zero_point, output_min, output_max; already checked) into its
/// problem's requantization fields, with inv_out_scale computed as
/// quantize_per_tensor computes its inverse scale (1.0 / scale in double,
/// then float). Args/Problem: Int8ConvArgs/Int8ConvProblem and the depthwise pair.
template <typename Args, typename Problem>
void set_int8_requantization(const Args& a, Problem* q) {
  q->in_zero_point = static_cast<int32_t>(a.input_zero_point);
  q->in_scale = static_cast<float>(a.input_scale);
  q->inv_out_scale = static_cast<float>(1.0 / a.output_scale);
  q->out_zero_point = static_cast<float>(a.output_zero_point);
  q->quant_min = static_cast<float>(a.output_min);
  q->quant_max = static_cast<float>(a.output_max);
}

}  // namespace quantized
}  // namespace torchedge
