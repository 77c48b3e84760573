// torchedge/kernels/quantized/support/dequantize_loops.h
//
// Dispatch and inner loops shared by the dequantize kernels.
//
// Two orders of rounding exist in eager's reference, and each kernel names
// the one it reproduces:
//  - per tensor: (input.to(out_dtype) - zero_point) * scale, so every step
//    is rounded to the output dtype (matters for float16/bfloat16 outputs);
//  - per channel/token/group: (input - zero_points) * scales is computed in
//    the scales' dtype (float32 or float64) and converted to the output dtype
//    once at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/quantized/support/channel_params.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/core/error_message.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace quantized {

/// Per-tensor order; Out: float, double, Half or BFloat16.
template <typename Q, typename Out>
void dequantize_run_in_out_dtype(const Q* in, Out* out, size_t count, double scale,
                                 double zero_point) {
  using C = typename std::conditional<std::is_same<Out, double>::value, double, float>::type;
  const C s = static_cast<C>(scale);
  const C zp = static_cast<C>(zero_point);
  for (size_t i = 0; i < count; ++i) {
    const Out widened = static_cast<Out>(static_cast<C>(in[i]));
    const Out shifted = static_cast<Out>(static_cast<C>(widened) - zp);
    out[i] = static_cast<Out>(static_cast<C>(shifted) * s);
  }
}

/// Per channel/token/group order: (q - zp) exact as an integer (wrapped to
/// the promoted integer dtype by the caller's choice of `zero_point`), then
/// times the scale in C, then one conversion to Out.
template <typename Q, typename C, typename Out>
void dequantize_run_in_scale_dtype(const Q* in, Out* out, size_t count, C scale,
                                   int64_t zero_point) {
  for (size_t i = 0; i < count; ++i) {
    const int64_t diff = static_cast<int64_t>(in[i]) - zero_point;
    out[i] = static_cast<Out>(static_cast<C>(diff) * scale);
  }
}

/// Same with a floating zero point: eager computes (q - zp) in the zero
/// point's dtype Z (float or double) first.
template <typename Q, typename Z, typename C, typename Out>
void dequantize_run_float_zero_point(const Q* in, Out* out, size_t count, C scale, Z zero_point) {
  for (size_t i = 0; i < count; ++i) {
    const Z diff = static_cast<Z>(in[i]) - zero_point;
    out[i] = static_cast<Out>(static_cast<C>(diff) * scale);
  }
}

/// q - zp wrapped to `diff_dtype` (eager's integer subtraction overflowed).
template <typename Q, typename C, typename Out>
void dequantize_run_wrapping(const Q* in, Out* out, size_t count, C scale, int64_t zero_point,
                             ScalarType diff_dtype) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t raw = static_cast<uint64_t>(static_cast<int64_t>(in[i])) -
                         static_cast<uint64_t>(zero_point);
    const int64_t diff = wrap_to(static_cast<int64_t>(raw), diff_dtype);
    out[i] = static_cast<Out>(static_cast<C>(diff) * scale);
  }
}

/// Dequantizes one run with parameter `index` of `scales`/`zero_points`
/// (zero_points nullable: zero), in the per channel/token/group order.
template <typename Q, typename C, typename Out>
void dequantize_run_with_params(const Q* in, Out* out, size_t count, const Tensor& scales,
                                const Tensor* zero_points, size_t index) {
  const C scale = static_cast<C>(read_double(scales, index));
  if (zero_points == nullptr) {
    dequantize_run_in_scale_dtype<Q, C, Out>(in, out, count, scale, 0);
  } else if (zero_points->dtype() == ScalarType::Float) {
    dequantize_run_float_zero_point<Q, float, C, Out>(
        in, out, count, scale, zero_points->data_as<float>()[index]);
  } else if (zero_points->dtype() == ScalarType::Double) {
    dequantize_run_float_zero_point<Q, double, C, Out>(
        in, out, count, scale, zero_points->data_as<double>()[index]);
  } else {
    const int64_t zp = read_int(*zero_points, index);
    const ScalarType q_dtype = ScalarTypeOf<Q>::value;
    const ScalarType diff_dtype = integer_difference_dtype(q_dtype, *zero_points);
    if (difference_may_wrap(q_dtype, zp, diff_dtype)) {
      dequantize_run_wrapping<Q, C, Out>(in, out, count, scale, zp, diff_dtype);
    } else {
      dequantize_run_in_scale_dtype<Q, C, Out>(in, out, count, scale, zp);
    }
  }
}

/// Calls f(Q{}, Out{}) for a quantized input dtype and a float output dtype.
template <typename F>
Error switch_dequantize_types(ScalarType q, ScalarType out, const char* op, F&& f) {
  auto with_out = [&](auto q_tag) -> Error {
    switch (out) {
      case ScalarType::Float: return f(q_tag, float{});
      case ScalarType::Double: return f(q_tag, double{});
      case ScalarType::Half: return f(q_tag, Half{});
      case ScalarType::BFloat16: return f(q_tag, BFloat16{});
      default: break;
    }
    record_error_message("%s: unsupported output dtype %s", op, to_string(out));
    return Error::InvalidType;
  };
  switch (q) {
    case ScalarType::Byte: return with_out(uint8_t{});
    case ScalarType::Char: return with_out(int8_t{});
    case ScalarType::Short: return with_out(int16_t{});
    case ScalarType::UInt16: return with_out(uint16_t{});
    case ScalarType::Int: return with_out(int32_t{});
    default: break;
  }
  record_error_message("%s: unsupported quantized dtype %s", op, to_string(q));
  return Error::InvalidType;
}

}  // namespace quantized
}  // namespace torchedge
