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
// Complex dtypes are not in switch_dtype: a kernel opts in with
// switch_dtype_only<kAllowed> (elementwise.h) and kAllowed holding
// kComplexTypes, which adds switch_complex_dtype's cases, so lambdas written
// for ordered real types are never instantiated for std::complex.
//
// A dtype outside `allowed` records "<op>: unsupported dtype <name>" and
// returns Error::InvalidType. Keep the lambda body small: it is instantiated
// once per allowed dtype.
//
// Selective builds (kernels/selective, docs/selective-build.md) define
// TORCHEDGE_SELECTED_DTYPES, a DtypeSet of the dtypes the op list names;
// every case outside it is discarded at compile time (the lambda is never
// instantiated for it), and reaching one records "<op>: dtype <name> is not
// compiled into this selective build". One set per library build, not per
// operator: the support templates shared by kernels (element loads with
// type promotion) are instantiated once per binary, so per-operator sets
// would let one kernel's narrower copy serve another.
#pragma once

#include <complex>
#include <cstdint>

#include "kernels/portable/support/complex.h"  // ScalarTypeOf<std::complex<R>>
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
/// complex64 and complex128, computed as std::complex<float> / <double>
/// (complex32 is only constructed, cast and FFT'd: complex.h).
constexpr DtypeSet kComplexTypes =
    dtype_bit(ScalarType::ComplexFloat) | dtype_bit(ScalarType::ComplexDouble);

inline bool dtype_in(ScalarType t, DtypeSet set) { return (dtype_bit(t) & set) != 0; }

/// The dtypes this build compiles kernels for (all, unless selective).
#if defined(TORCHEDGE_SELECTED_DTYPES)
constexpr DtypeSet kCompiledDtypes = TORCHEDGE_SELECTED_DTYPES;
#else
constexpr DtypeSet kCompiledDtypes = ~DtypeSet{0};
#endif

namespace dtype_dispatch_detail {
// f(T{}) when T's dtype is compiled in; otherwise the call is discarded
// (never instantiated) and the gap is reported.
template <ScalarType kType, typename T, typename F>
Error call_if_compiled(F&& f, const char* op_name) {
  if constexpr ((kCompiledDtypes & dtype_bit(kType)) != 0) {
    return f(T{});
  } else {
    record_error_message("%s: dtype %s is not compiled into this selective build", op_name,
                         to_string(kType));
    return Error::InvalidType;
  }
}
}  // namespace dtype_dispatch_detail

template <typename F>
Error switch_dtype(ScalarType t, DtypeSet allowed, const char* op_name, F&& f) {
  using dtype_dispatch_detail::call_if_compiled;
  if (dtype_in(t, allowed)) {
    switch (t) {
      case ScalarType::Float: return call_if_compiled<ScalarType::Float, float>(f, op_name);
      case ScalarType::Double: return call_if_compiled<ScalarType::Double, double>(f, op_name);
      case ScalarType::Half: return call_if_compiled<ScalarType::Half, Half>(f, op_name);
      case ScalarType::BFloat16: return call_if_compiled<ScalarType::BFloat16, BFloat16>(f, op_name);
      case ScalarType::Byte: return call_if_compiled<ScalarType::Byte, uint8_t>(f, op_name);
      case ScalarType::Char: return call_if_compiled<ScalarType::Char, int8_t>(f, op_name);
      case ScalarType::Short: return call_if_compiled<ScalarType::Short, int16_t>(f, op_name);
      case ScalarType::Int: return call_if_compiled<ScalarType::Int, int32_t>(f, op_name);
      case ScalarType::Long: return call_if_compiled<ScalarType::Long, int64_t>(f, op_name);
      case ScalarType::Bool: return call_if_compiled<ScalarType::Bool, bool>(f, op_name);
      default: break;
    }
  }
  record_error_message("%s: unsupported dtype %s", op_name, to_string(t));
  return Error::InvalidType;
}

/// switch_dtype for the complex dtypes in `allowed`: f(std::complex<float>{})
/// for complex64, f(std::complex<double>{}) for complex128.
template <typename F>
Error switch_complex_dtype(ScalarType t, DtypeSet allowed, const char* op_name, F&& f) {
  using dtype_dispatch_detail::call_if_compiled;
  if (dtype_in(t, allowed & kComplexTypes)) {
    if (t == ScalarType::ComplexFloat) {
      return call_if_compiled<ScalarType::ComplexFloat, std::complex<float>>(f, op_name);
    }
    return call_if_compiled<ScalarType::ComplexDouble, std::complex<double>>(f, op_name);
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
