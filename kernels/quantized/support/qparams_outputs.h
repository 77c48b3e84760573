// torchedge/kernels/quantized/support/qparams_outputs.h
//
// The (scale, zero_point) outputs of the choose_qparams kernels: eager
// returns float64 scales and int64 zero points; float32 / int32 outputs are
// accepted too (a planner may narrow them) and written with a conversion.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error_message.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace quantized {

inline Error check_qparams_outputs(const Tensor& scale_out, const Tensor& zero_point_out,
                                   const char* op) {
  TE_CHECK_OR_RETURN(scale_out.dtype() == ScalarType::Double ||
                         scale_out.dtype() == ScalarType::Float,
                     Error::InvalidType, "%s: scale_out must be float64 (or float32), got %s", op,
                     to_string(scale_out.dtype()));
  TE_CHECK_OR_RETURN(zero_point_out.dtype() == ScalarType::Long ||
                         zero_point_out.dtype() == ScalarType::Int,
                     Error::InvalidType, "%s: zero_point_out must be int64 (or int32), got %s",
                     op, to_string(zero_point_out.dtype()));
  return Error::Ok;
}

inline void write_qparams(Tensor& scale_out, Tensor& zero_point_out, size_t i, double scale,
                          int64_t zero_point) {
  if (scale_out.dtype() == ScalarType::Double) {
    scale_out.mutable_data_as<double>()[i] = scale;
  } else {
    scale_out.mutable_data_as<float>()[i] = static_cast<float>(scale);
  }
  if (zero_point_out.dtype() == ScalarType::Long) {
    zero_point_out.mutable_data_as<int64_t>()[i] = zero_point;
  } else {
    zero_point_out.mutable_data_as<int32_t>()[i] = static_cast<int32_t>(zero_point);
  }
}

}  // namespace quantized
}  // namespace torchedge
