#include "kernels/quantized/support/channel_params.h"

#include "kernels/quantized/support/quant_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace quantized {
namespace {

void int_bounds(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte: *lo = 0; *hi = UINT8_MAX; return;
    case ScalarType::Char: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case ScalarType::Short: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case ScalarType::UInt16: *lo = 0; *hi = UINT16_MAX; return;
    case ScalarType::Int: *lo = INT32_MIN; *hi = INT32_MAX; return;
    default: *lo = INT64_MIN; *hi = INT64_MAX; return;
  }
}

}  // namespace

Error check_param_tensors(const Tensor& scales, const Tensor* zero_points, size_t expected,
                          const char* what, const char* op) {
  TE_CHECK_OR_RETURN(scales.dtype() == ScalarType::Float || scales.dtype() == ScalarType::Double,
                     Error::InvalidType, "%s: scales must be float32 or float64, got %s", op,
                     to_string(scales.dtype()));
  TE_CHECK_OR_RETURN(scales.numel() == expected, Error::InvalidArgument,
                     "%s: expected %zu scales (one per %s), got %zu", op, expected, what,
                     scales.numel());
  if (zero_points == nullptr) return Error::Ok;
  const ScalarType zt = zero_points->dtype();
  TE_CHECK_OR_RETURN(is_integral(zt) || zt == ScalarType::Float || zt == ScalarType::Double,
                     Error::InvalidType,
                     "%s: zero_points must be an integer, float32 or float64 tensor, got %s", op,
                     to_string(zt));
  TE_CHECK_OR_RETURN(!(zt == ScalarType::Double && scales.dtype() == ScalarType::Float),
                     Error::InvalidType,
                     "%s: float64 zero_points need float64 scales (got float32 scales)", op);
  TE_CHECK_OR_RETURN(zero_points->numel() == expected, Error::InvalidArgument,
                     "%s: expected %zu zero_points (one per %s), got %zu", op, expected, what,
                     zero_points->numel());
  return Error::Ok;
}

ScalarType integer_difference_dtype(ScalarType input, const Tensor& zero_points) {
  const ScalarType zt = zero_points.dtype();
  if (zero_points.dim() == 0 || zt == input) return input;
  const size_t wi = element_size(input), wz = element_size(zt);
  const bool si = info(input).is_signed, sz = info(zt).is_signed;
  size_t width = 0;
  if (si == sz) {
    width = wi > wz ? wi : wz;
    if (!si) return width == 1 ? ScalarType::Byte : width == 2 ? ScalarType::UInt16
                                                                : ScalarType::Long;
  } else {  // one unsigned: a signed type wider than the unsigned one
    const size_t wu = si ? wz : wi, ws = si ? wi : wz;
    width = ws > 2 * wu ? ws : 2 * wu;
  }
  return width == 1 ? ScalarType::Char : width == 2 ? ScalarType::Short
                                        : width == 4 ? ScalarType::Int : ScalarType::Long;
}

bool difference_may_wrap(ScalarType input, int64_t zero_point, ScalarType diff_dtype) {
  int64_t qlo = 0, qhi = 0, dlo = 0, dhi = 0;
  int_bounds(input, &qlo, &qhi);
  int_bounds(diff_dtype, &dlo, &dhi);
  // Zero points come from int64 tensors at most; the int64 difference of
  // bounded quantized values and such a zero point cannot overflow int64
  // unless zp is extreme, which is then treated as wrapping.
  if (zero_point > 0 && qlo < INT64_MIN + zero_point) return true;
  if (zero_point < 0 && qhi > INT64_MAX + zero_point) return true;
  return qlo - zero_point < dlo || qhi - zero_point > dhi;
}

int64_t wrap_to(int64_t v, ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return static_cast<uint8_t>(v);
    case ScalarType::Char: return static_cast<int8_t>(v);
    case ScalarType::Short: return static_cast<int16_t>(v);
    case ScalarType::UInt16: return static_cast<uint16_t>(v);
    case ScalarType::Int: return static_cast<int32_t>(v);
    default: return v;
  }
}

}  // namespace quantized
}  // namespace torchedge
