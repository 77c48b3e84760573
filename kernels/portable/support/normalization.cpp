#include "kernels/portable/support/normalization.h"

#include "runtime/core/error_message.h"
#include "runtime/core/half.h"

namespace torchedge {

Error check_norm_param(const Tensor* param, ScalarType input_dtype, int64_t numel, const char* op,
                       const char* name) {
  if (param == nullptr) return Error::Ok;
  const bool narrow_input = input_dtype == ScalarType::Half || input_dtype == ScalarType::BFloat16;
  TE_CHECK_OR_RETURN(param->dtype() == input_dtype ||
                         (narrow_input && param->dtype() == ScalarType::Float),
                     Error::InvalidType, "%s: %s has dtype %s, expected %s%s", op, name,
                     to_string(param->dtype()), to_string(input_dtype),
                     narrow_input ? " or float32" : "");
  TE_CHECK_OR_RETURN(static_cast<int64_t>(param->numel()) == numel, Error::InvalidArgument,
                     "%s: %s has %zu elements, expected %lld", op, name, param->numel(),
                     static_cast<long long>(numel));
  return Error::Ok;
}

double load_as_double(const Tensor& t, int64_t offset) {
  switch (t.dtype()) {
    case ScalarType::Float: return t.data_as<float>()[offset];
    case ScalarType::Double: return t.data_as<double>()[offset];
    case ScalarType::Half: return static_cast<float>(t.data_as<Half>()[offset]);
    case ScalarType::BFloat16: return static_cast<float>(t.data_as<BFloat16>()[offset]);
    default: return 0.0;  // check_norm_param admits floating dtypes only
  }
}

void store_from_double(Tensor& t, int64_t offset, double v) {
  switch (t.dtype()) {
    case ScalarType::Float: t.mutable_data_as<float>()[offset] = static_cast<float>(v); break;
    case ScalarType::Double: t.mutable_data_as<double>()[offset] = v; break;
    case ScalarType::Half: t.mutable_data_as<Half>()[offset] = static_cast<float>(v); break;
    case ScalarType::BFloat16:
      t.mutable_data_as<BFloat16>()[offset] = static_cast<float>(v);
      break;
    default: break;  // callers check for a floating dtype
  }
}

}  // namespace torchedge
