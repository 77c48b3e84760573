// torchedge/kernels/portable/support/complex.h
//
// Complex element types and their dispatch. complex64 and complex128 are
// std::complex<float> / std::complex<double> (the layout ATen uses: real then
// imaginary part); complex32 is a pair of float16 halves. Kernels compute in
// std::complex<double> (ComplexAccumulator) and store back, so complex32 and
// complex64 round once per stored element.
//
//   return switch_complex(out.dtype(), "view_as_complex_copy.out", [&](auto tag) {
//     using C = decltype(tag);            // ComplexHalf, std::complex<float>, ...
//     store_complex<C>(ptr, i, value);    // value: std::complex<double>
//     return Error::Ok;
//   });
#pragma once

#include <complex>
#include <cstdint>

#include "runtime/core/error_message.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar_type.h"

namespace torchedge {

/// complex32: (real, imag) float16 halves, as torch.complex32 lays them out.
struct ComplexHalf {
  Half real;
  Half imag;
};

using ComplexAccumulator = std::complex<double>;

/// The real type of one part of complex dtype `t` (Half, Float or Double);
/// `t` must be complex.
constexpr ScalarType complex_part_type(ScalarType t) {
  return t == ScalarType::ComplexHalf ? ScalarType::Half
         : t == ScalarType::ComplexFloat ? ScalarType::Float
                                         : ScalarType::Double;
}

/// The complex dtype whose parts are real dtype `t` (Half, Float, Double);
/// ComplexFloat for any other dtype (ATen's default complex dtype).
constexpr ScalarType complex_type_of(ScalarType t) {
  return t == ScalarType::Half ? ScalarType::ComplexHalf
         : t == ScalarType::Double ? ScalarType::ComplexDouble
                                   : ScalarType::ComplexFloat;
}

template <typename C>
inline ComplexAccumulator load_complex(const C* p, int64_t i) {
  return ComplexAccumulator(static_cast<double>(p[i].real()), static_cast<double>(p[i].imag()));
}
template <>
inline ComplexAccumulator load_complex<ComplexHalf>(const ComplexHalf* p, int64_t i) {
  return ComplexAccumulator(static_cast<float>(p[i].real), static_cast<float>(p[i].imag));
}

template <typename C>
inline void store_complex(C* p, int64_t i, ComplexAccumulator v) {
  using R = typename C::value_type;
  p[i] = C(static_cast<R>(v.real()), static_cast<R>(v.imag()));
}
template <>
inline void store_complex<ComplexHalf>(ComplexHalf* p, int64_t i, ComplexAccumulator v) {
  p[i].real = Half(static_cast<float>(v.real()));
  p[i].imag = Half(static_cast<float>(v.imag()));
}

/// Calls f(C{}) with C the element type of complex dtype `t`; any other
/// dtype records "<op>: unsupported dtype <name> (expected a complex
/// dtype)" and returns InvalidType.
template <typename F>
Error switch_complex(ScalarType t, const char* op_name, F&& f) {
  switch (t) {
    case ScalarType::ComplexHalf: return f(ComplexHalf{});
    case ScalarType::ComplexFloat: return f(std::complex<float>{});
    case ScalarType::ComplexDouble: return f(std::complex<double>{});
    default: break;
  }
  record_error_message("%s: unsupported dtype %s (expected a complex dtype)", op_name,
                       to_string(t));
  return Error::InvalidType;
}

}  // namespace torchedge
