#include "kernels/quantized/support/quant_args.h"

#include <cmath>

#include "runtime/core/error_message.h"
#include "runtime/core/half.h"

namespace torchedge {
namespace quantized {

bool is_quant_dtype(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::UInt16;
}

bool is_float_dtype(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
         t == ScalarType::BFloat16;
}

namespace {

Result<ScalarType> dtype_from_code(int64_t code, const char* name, const char* op) {
  TE_CHECK_OR_RETURN(code >= 0 && code < static_cast<int64_t>(kNumScalarTypeSlots) &&
                         is_valid_scalar_type(static_cast<int>(code)),
                     Error::InvalidArgument, "%s: argument '%s' is not a known dtype code (%lld)",
                     op, name, static_cast<long long>(code));
  return static_cast<ScalarType>(code);
}

void dtype_bounds(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte: *lo = 0; *hi = 255; return;
    case ScalarType::Char: *lo = -128; *hi = 127; return;
    case ScalarType::Short: *lo = -32768; *hi = 32767; return;
    case ScalarType::UInt16: *lo = 0; *hi = 65535; return;
    default: *lo = INT32_MIN; *hi = INT32_MAX; return;
  }
}

}  // namespace

Result<ScalarType> quant_dtype_arg(Span<EValue*> args, size_t index, const char* name,
                                   const char* op) {
  TE_ASSIGN_OR_RETURN(int64_t code, int_arg(args, index, name));
  TE_ASSIGN_OR_RETURN(ScalarType t, dtype_from_code(code, name, op));
  TE_CHECK_OR_RETURN(is_quant_dtype(t), Error::InvalidType,
                     "%s: unsupported quantized dtype %s (expected uint8, int8, uint16, int16 or "
                     "int32)",
                     op, to_string(t));
  return t;
}

Result<ScalarType> float_dtype_arg(Span<EValue*> args, size_t index, const char* name,
                                   const char* op, ScalarType fallback) {
  TE_ASSIGN_OR_RETURN(int64_t code,
                      optional_int_arg(args, index, name, static_cast<int64_t>(fallback)));
  TE_ASSIGN_OR_RETURN(ScalarType t, dtype_from_code(code, name, op));
  TE_CHECK_OR_RETURN(is_float_dtype(t), Error::InvalidType,
                     "%s: '%s' must be a floating dtype, got %s", op, name, to_string(t));
  return t;
}

Error check_quant_range(int64_t quant_min, int64_t quant_max, ScalarType dtype, const char* op) {
  int64_t lo = 0, hi = 0;
  dtype_bounds(dtype, &lo, &hi);
  TE_CHECK_OR_RETURN(quant_min >= lo, Error::InvalidArgument,
                     "%s: quant_min out of bounds for dtype %s, quant_min_lower_bound: %lld "
                     "quant_min: %lld",
                     op, to_string(dtype), static_cast<long long>(lo),
                     static_cast<long long>(quant_min));
  TE_CHECK_OR_RETURN(quant_max <= hi, Error::InvalidArgument,
                     "%s: quant_max out of bounds for dtype %s, quant_max_upper_bound: %lld "
                     "quant_max: %lld",
                     op, to_string(dtype), static_cast<long long>(hi),
                     static_cast<long long>(quant_max));
  TE_CHECK_OR_RETURN(quant_min <= quant_max, Error::InvalidArgument,
                     "%s: quant_min (%lld) must not exceed quant_max (%lld)", op,
                     static_cast<long long>(quant_min), static_cast<long long>(quant_max));
  return Error::Ok;
}

Error expect_quantizable_input(const Tensor& t, const char* op) {
  TE_CHECK_OR_RETURN(t.dtype() == ScalarType::Float || t.dtype() == ScalarType::Half ||
                         t.dtype() == ScalarType::BFloat16,
                     Error::InvalidType,
                     "%s: Expecting input to have dtype torch.float32 (or float16/bfloat16), but "
                     "got dtype: %s",
                     op, to_string(t.dtype()));
  return Error::Ok;
}

Error expect_same_layout(const Tensor& in, const Tensor& out, const char* op) {
  bool same = in.dim() == out.dim();
  for (int d = 0; same && d < in.dim(); ++d) same = in.dim_order()[d] == out.dim_order()[d];
  TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                     "%s: input and out must have the same dim order (memory format)", op);
  return Error::Ok;
}

Error expect_row_major(const Tensor& t, const char* what, const char* op) {
  bool row_major = true;
  for (int d = 0; row_major && d < t.dim(); ++d) row_major = t.dim_order()[d] == d;
  TE_CHECK_OR_RETURN(row_major, Error::InvalidArgument,
                     "%s: %s must be in the default (contiguous) dim order", op, what);
  return Error::Ok;
}

int64_t read_int(const Tensor& t, size_t i) {
  switch (t.dtype()) {
    case ScalarType::Byte: return t.data_as<uint8_t>()[i];
    case ScalarType::Char: return t.data_as<int8_t>()[i];
    case ScalarType::Short: return t.data_as<int16_t>()[i];
    case ScalarType::UInt16: return t.data_as<uint16_t>()[i];
    case ScalarType::Int: return t.data_as<int32_t>()[i];
    case ScalarType::Long: return t.data_as<int64_t>()[i];
    case ScalarType::Bool: return t.data_as<bool>()[i] ? 1 : 0;
    default:  // floating dtypes (read_double never comes back here for them)
      return is_floating(t.dtype()) ? static_cast<int64_t>(read_double(t, i)) : 0;
  }
}

double read_double(const Tensor& t, size_t i) {
  switch (t.dtype()) {
    case ScalarType::Float: return t.data_as<float>()[i];
    case ScalarType::Double: return t.data_as<double>()[i];
    case ScalarType::Half: return static_cast<float>(t.data_as<Half>()[i]);
    case ScalarType::BFloat16: return static_cast<float>(t.data_as<BFloat16>()[i]);
    default: return static_cast<double>(read_int(t, i));
  }
}

Result<ScalarQparams> one_element_qparams_args(Span<EValue*> args, const char* op) {
  TE_ASSIGN_OR_RETURN(const Tensor* scale, tensor_arg(args, 1, "scale"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_point, tensor_arg(args, 2, "zero_point"));
  TE_CHECK_OR_RETURN(scale->numel() == 1 && zero_point->numel() == 1, Error::InvalidArgument,
                     "%s: Expecting scale and zero_point tensors to be one element, but received "
                     "%zu and %zu",
                     op, scale->numel(), zero_point->numel());
  TE_CHECK_OR_RETURN(is_float_dtype(scale->dtype()), Error::InvalidType,
                     "%s: scale must be a floating tensor, got %s", op, to_string(scale->dtype()));
  TE_CHECK_OR_RETURN(zero_point->dtype() != ScalarType::Bool, Error::InvalidType,
                     "%s: zero_point must be a numeric tensor", op);
  const double zp = is_integral(zero_point->dtype())
                        ? static_cast<double>(read_int(*zero_point, 0))
                        : read_double(*zero_point, 0);
  return ScalarQparams{read_double(*scale, 0), zp};
}

Error check_int_pair(Span<const int64_t> v, const char* name, int64_t min, const char* op) {
  TE_CHECK_OR_RETURN(v.size() == 2, Error::InvalidArgument, "%s: %s must have 2 values, got %zu",
                     op, name, v.size());
  TE_CHECK_OR_RETURN(v[0] >= min && v[1] >= min, Error::InvalidArgument,
                     "%s: %s must be >= %lld, got [%lld, %lld]", op, name,
                     static_cast<long long>(min), static_cast<long long>(v[0]),
                     static_cast<long long>(v[1]));
  return Error::Ok;
}

Error check_positive_scale(double s, const char* name, const char* op) {
  TE_CHECK_OR_RETURN(std::isfinite(s) && s > 0.0 && std::isfinite(static_cast<float>(s)) &&
                         static_cast<float>(s) > 0.0f,
                     Error::InvalidArgument, "%s: %s must be finite and > 0, got %g", op, name, s);
  return Error::Ok;
}

Error check_int8_value(int64_t v, const char* name, const char* op) {
  TE_CHECK_OR_RETURN(v >= -128 && v <= 127, Error::InvalidArgument,
                     "%s: %s must be in [-128, 127], got %lld", op, name,
                     static_cast<long long>(v));
  return Error::Ok;
}

Error window_output_size(int64_t height, int64_t width, int64_t kernel_h, int64_t kernel_w,
                         int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                         int64_t dilation_h, int64_t dilation_w, int64_t* out_height,
                         int64_t* out_width, const char* op) {
  const int64_t span_h = height + 2 * pad_h - dilation_h * (kernel_h - 1) - 1;
  const int64_t span_w = width + 2 * pad_w - dilation_w * (kernel_w - 1) - 1;
  TE_CHECK_OR_RETURN(span_h >= 0 && span_w >= 0, Error::InvalidArgument,
                     "%s: the kernel (%lld x %lld, dilation %lld x %lld) is larger than the "
                     "padded input (%lld x %lld)",
                     op, static_cast<long long>(kernel_h), static_cast<long long>(kernel_w),
                     static_cast<long long>(dilation_h), static_cast<long long>(dilation_w),
                     static_cast<long long>(height + 2 * pad_h),
                     static_cast<long long>(width + 2 * pad_w));
  *out_height = span_h / stride_h + 1;
  *out_width = span_w / stride_w + 1;
  return Error::Ok;
}

}  // namespace quantized
}  // namespace torchedge
