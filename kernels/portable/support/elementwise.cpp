#include "kernels/portable/support/elementwise.h"

#include <cfloat>
#include <climits>
#include <cstring>

#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {

// ---- Type promotion ---------------------------------------------------------

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    // The complex type whose parts hold both operands' real values:
    // complex64 with float64 is complex128, with int64 stays complex64.
    const ScalarType part_a = is_complex(a) ? complex_part_type(a) : a;
    const ScalarType part_b = is_complex(b) ? complex_part_type(b) : b;
    if (!is_floating(part_a)) return b;
    if (!is_floating(part_b)) return a;
    return complex_type_of(promote_types(part_a, part_b));
  }
  const bool float_a = is_floating(a);
  const bool float_b = is_floating(b);
  if (float_a != float_b) return float_a ? a : b;
  if (float_a) {
    // The two 16-bit formats cannot represent each other: meet in float32.
    if (element_size(a) == 2 && element_size(b) == 2) return ScalarType::Float;
  } else if (a == ScalarType::Byte || b == ScalarType::Byte) {
    // uint8 with a signed type: the smallest signed type holding both.
    const ScalarType other = a == ScalarType::Byte ? b : a;
    if (other == ScalarType::Char) return ScalarType::Short;
    return other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

ScalarType scalar_dtype(const EValue& scalar) {
  if (scalar.is_double()) return ScalarType::Float;
  if (scalar.is_bool()) return ScalarType::Bool;
  return ScalarType::Long;
}

void ResultType::Tier::add(ScalarType t) {
  dtype = set ? promote_types(dtype, t) : t;
  set = true;
}

void ResultType::add(const Tensor& t) {
  (t.dim() == 0 ? zero_dim_ : dimensioned_).add(t.dtype());
}

void ResultType::add(const EValue& scalar) {
  if (scalar.is_scalar()) wrapped_.add(scalar_dtype(scalar));
}

ScalarType ResultType::get() const {
  // ATen's combine_categories: a lower tier only matters when it is of a
  // higher category (bool < integral < floating < complex) than the tier
  // above it; a complex lower tier over a floating one keeps the higher
  // tier's precision (float64 tensor * complex64 zero-dim: complex128).
  auto combine = [](Tier higher, Tier lower) {
    if (!higher.set) return lower;
    if (!lower.set || is_complex(higher.dtype)) return higher;
    if (is_complex(lower.dtype)) {
      if (is_floating(higher.dtype)) higher.dtype = complex_type_of(higher.dtype);
      else higher.dtype = lower.dtype;
      return higher;
    }
    if (is_floating(higher.dtype)) return higher;
    if (higher.dtype == ScalarType::Bool || is_floating(lower.dtype)) higher.add(lower.dtype);
    return higher;
  };
  const Tier result = combine(dimensioned_, combine(zero_dim_, wrapped_));
  return result.set ? result.dtype : ScalarType::Float;
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultType r;
  r.add(a);
  r.add(b);
  return r.get();
}

ScalarType result_type(const Tensor& a, const EValue& scalar) {
  ResultType r;
  r.add(a);
  r.add(scalar);
  return r.get();
}

Error expect_castable(ScalarType result, const Tensor& out, const char* op) {
  TE_CHECK_OR_RETURN(can_cast(result, out.dtype()), Error::InvalidType,
                     "%s: result type %s can't be cast to the desired output type %s", op,
                     to_string(result), to_string(out.dtype()));
  return Error::Ok;
}

Error expect_valid_alpha(const EValue& alpha, ScalarType result, const char* op) {
  TE_CHECK_OR_RETURN(!alpha.is_bool() || result == ScalarType::Bool, Error::InvalidArgument,
                     "%s: boolean alpha only supported for boolean results", op);
  TE_CHECK_OR_RETURN(!alpha.is_double() || is_floating(result), Error::InvalidArgument,
                     "%s: for integral input tensors, argument alpha must not be a floating "
                     "point number", op);
  return Error::Ok;
}

// ---- Broadcasting -----------------------------------------------------------

namespace {

Error resize_to_broadcast_of(Tensor& out, const Tensor* const* inputs, int count) {
  int rank = 0;
  for (int k = 0; k < count; ++k) rank = inputs[k]->dim() > rank ? inputs[k]->dim() : rank;
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < rank; ++d) {
    int64_t size = 1;
    for (int k = 0; k < count; ++k) {
      const int in_d = d - (rank - inputs[k]->dim());
      if (in_d < 0) continue;
      const int64_t s = inputs[k]->size(in_d);
      if (s == size || s == 1) continue;
      if (size != 1) {
        char a[128];
        char b[128];
        record_error_message("shapes %s and %s are not broadcastable",
                             format_sizes(inputs[0]->sizes(), a, sizeof(a)),
                             format_sizes(inputs[k]->sizes(), b, sizeof(b)));
        return Error::InvalidArgument;
      }
      size = s;
    }
    sizes[d] = size;
  }
  return resize_to(out, {sizes, static_cast<size_t>(rank)});
}

}  // namespace

Error resize_to_broadcast(Tensor& out, const Tensor& a, const Tensor& b) {
  const Tensor* inputs[] = {&a, &b};
  return resize_to_broadcast_of(out, inputs, 2);
}

Error resize_to_broadcast(Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c) {
  const Tensor* inputs[] = {&a, &b, &c};
  return resize_to_broadcast_of(out, inputs, 3);
}

// ---- Loops ------------------------------------------------------------------

Error plan_loop(const Tensor& out, const Tensor* const* inputs, int num_inputs, LoopPlan* plan) {
  const int rank = out.dim();
  char have[128];
  char want[128];
  for (int k = 0; k < num_inputs; ++k) {
    const Tensor& in = *inputs[k];
    bool ok = in.dim() <= rank;
    for (int d = 0; ok && d < in.dim(); ++d) {
      const int64_t s = in.size(d);
      ok = s == 1 || s == out.size(d + rank - in.dim());
    }
    TE_CHECK_OR_RETURN(ok, Error::InvalidArgument, "input %d of shape %s does not broadcast to %s",
                       k, format_sizes(in.sizes(), have, sizeof(have)),
                       format_sizes(out.sizes(), want, sizeof(want)));
  }
  const int n = num_inputs + 1;
  plan->numel = static_cast<int64_t>(out.numel());
  int r = 0;
  for (int i = 0; i < rank; ++i) {
    const int d = out.dim_order()[i];
    const int64_t size = out.size(d);
    if (size == 1) continue;
    int64_t st[LoopPlan::kMaxOperands];
    st[0] = out.stride(d);
    for (int k = 0; k < num_inputs; ++k) {
      const Tensor& in = *inputs[k];
      const int in_d = d - (rank - in.dim());
      st[k + 1] = (in_d < 0 || in.size(in_d) == 1) ? 0 : in.stride(in_d);
    }
    bool merge = r > 0;
    for (int k = 0; merge && k < n; ++k) merge = plan->strides[k][r - 1] == st[k] * size;
    if (merge) {
      plan->sizes[r - 1] *= size;
    } else {
      plan->sizes[r] = size;
      ++r;
    }
    for (int k = 0; k < n; ++k) plan->strides[k][r - 1] = st[k];
  }
  if (r == 0) {  // a single element (or rank 0)
    plan->sizes[0] = 1;
    for (int k = 0; k < n; ++k) plan->strides[k][0] = 0;
    r = 1;
  }
  plan->rank = r;
  bool flat = r == 1;
  for (int k = 0; flat && k < n; ++k) flat = plan->strides[k][0] == 1 || plan->sizes[0] <= 1;
  plan->flat = flat;
  return Error::Ok;
}

namespace elementwise_internal {

Error unconvertible_dtype(const Tensor& out, const Tensor* const* inputs, int num_inputs) {
  const Tensor* bad = &out;
  for (int k = 0; k < num_inputs; ++k) {
    if (!dtype_in(inputs[k]->dtype(), kAllTypes)) bad = inputs[k];
  }
  record_error_message("unsupported dtype %s", to_string(bad->dtype()));
  return Error::InvalidType;
}

}  // namespace elementwise_internal

// ---- Fills ------------------------------------------------------------------

namespace {

// Largest finite value of a floating dtype, for the overflow check.
double floating_max(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return 65504.0;
    case ScalarType::BFloat16: return 3.3895313892515355e38;
    case ScalarType::Float: return FLT_MAX;
    default: return DBL_MAX;
  }
}

// Range of an integral dtype.
void integral_range(ScalarType t, int64_t* lo, int64_t* hi) {
  const int bits = static_cast<int>(element_size(t)) * 8;
  if (info(t).is_signed) {
    *hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
    *lo = -*hi - 1;
  } else {
    *lo = 0;
    *hi = (int64_t{1} << bits) - 1;
  }
}

}  // namespace

Error expect_scalar_fits(const EValue& scalar, ScalarType dtype, const char* op) {
  if (is_complex(dtype)) dtype = complex_part_type(dtype);  // a real scalar fills the real part
  bool fits = true;
  if (dtype == ScalarType::Bool || scalar.is_bool()) {
    fits = true;
  } else if (is_floating(dtype)) {
    const double v = scalar.scalar_as_double();
    // ATen allows inf and NaN but not a finite value beyond the range.
    fits = !std::isfinite(v) || std::fabs(v) <= floating_max(dtype);
  } else {
    int64_t lo = 0;
    int64_t hi = 0;
    integral_range(dtype, &lo, &hi);
    if (scalar.is_int()) {
      // Like c10::overflows, an unsigned type also takes negative integers
      // down to -max (they wrap: -1 is 255 for uint8), but no negative float.
      const int64_t int_lo = lo == 0 ? -hi : lo;
      fits = scalar.to_int() >= int_lo && scalar.to_int() <= hi;
    } else {
      const double v = scalar.to_double();
      fits = std::isfinite(v) && v >= static_cast<double>(lo) && v <= static_cast<double>(hi);
    }
  }
  if (fits) return Error::Ok;
  if (scalar.is_int()) {
    record_error_message("%s: value %lld cannot be converted to type %s without overflow", op,
                         static_cast<long long>(scalar.to_int()), to_string(dtype));
  } else {
    record_error_message("%s: value %g cannot be converted to type %s without overflow", op,
                         scalar.scalar_as_double(), to_string(dtype));
  }
  return Error::InvalidArgument;
}

Error fill_with_scalar(Tensor& out, const EValue& scalar, const char* op) {
  // A dense tensor occupies exactly numel() elements whatever its dim
  // order, so a flat fill is correct for every layout.
  return switch_dtype_only<kAllTypes | kComplexTypes>(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T value = convert_element<T>(scalar_to<compute_t<T>>(scalar));
    T* data = out.mutable_data_as<T>();
    for (size_t i = 0; i < out.numel(); ++i) data[i] = value;
    return Error::Ok;
  });
}

}  // namespace torchedge
