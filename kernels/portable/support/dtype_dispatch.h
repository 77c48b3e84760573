// torchedge/kernels/portable/support/dtype_dispatch.h
//
// Dtype dispatch: one plain switch that calls a generic lambda with a value
// of the element type, so a kernel writes its loop once as a template:
//
//   return switch_dtype(out.dtype(), kRealTypes, "add.out", [&](auto tag) {
//     using T = decltype(tag);
//     add_loop<T>(a, b, out);
//     return Error::Ok;
//   });
//
// A dtype outside `allowed` records "<op>: unsupported dtype <name>" and
// returns Error::InvalidType. Keep the lambda body small: it is instantiated
// once per allowed dtype.
#pragma once

#include <cstdint>

#include "runtime/core/error_message.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar_type.h"

namespace torchedge {

/// Bit sets of dtypes, one bit per wire value.
using DtypeSet = uint32_t;
constexpr DtypeSet dtype_bit(ScalarType t) { return DtypeSet{1} << static_cast<int>(t); }

constexpr DtypeSet kFloatingTypes = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double) |
                                    dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::BFloat16);
constexpr DtypeSet kIntegralTypes = dtype_bit(ScalarType::Byte) | dtype_bit(ScalarType::Char) |
                                    dtype_bit(ScalarType::Short) | dtype_bit(ScalarType::Int) |
                                    dtype_bit(ScalarType::Long);
constexpr DtypeSet kRealTypes = kFloatingTypes | kIntegralTypes;
constexpr DtypeSet kAllTypes = kRealTypes | dtype_bit(ScalarType::Bool);

inline bool dtype_in(ScalarType t, DtypeSet set) { return (dtype_bit(t) & set) != 0; }

template <typename F>
Error switch_dtype(ScalarType t, DtypeSet allowed, const char* op_name, F&& f) {
  if (dtype_in(t, allowed)) {
    switch (t) {
      case ScalarType::Float: return f(float{});
      case ScalarType::Double: return f(double{});
      case ScalarType::Half: return f(Half{});
      case ScalarType::BFloat16: return f(BFloat16{});
      case ScalarType::Byte: return f(uint8_t{});
      case ScalarType::Char: return f(int8_t{});
      case ScalarType::Short: return f(int16_t{});
      case ScalarType::Int: return f(int32_t{});
      case ScalarType::Long: return f(int64_t{});
      case ScalarType::Bool: return f(bool{});
      default: break;
    }
  }
  record_error_message("%s: unsupported dtype %s", op_name, to_string(t));
  return Error::InvalidType;
}

/// Arithmetic type used to compute on T: float for 16-bit floats, T otherwise.
template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<Half> {
  using type = float;
};
template <>
struct ComputeType<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeType<T>::type;

}  // namespace torchedge
