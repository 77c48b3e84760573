// torchedge/kernels/portable/support/complex.h
//
// Complex element types and their dispatch. complex64 and complex128 are
// std::complex<float> / std::complex<double> (the layout ATen uses: real then
// imaginary part); complex32 is a pair of float16 halves.
//
// Two ways kernels use them:
//   - construction, FFT and casts (op_complex.cpp, op_fft.cpp) compute in
//     std::complex<double> (ComplexAccumulator) and store back, so complex32
//     and complex64 round once per stored element (switch_complex below);
//   - the elementwise, reduction and matmul kernels compute complex64 in
//     std::complex<float> and complex128 in std::complex<double>, as ATen
//     does, through switch_dtype_only<kAllowed> (elementwise.h) when
//     kAllowed holds kComplexTypes (dtype_dispatch.h). The arithmetic that
//     std::complex does differently from ATen lives here: division
//     (complex_div, Smith's algorithm as c10::complex), sgn, angle.
//
//   return switch_complex(out.dtype(), "view_as_complex_copy.out", [&](auto tag) {
//     using C = decltype(tag);            // ComplexHalf, std::complex<float>, ...
//     store_complex<C>(ptr, i, value);    // value: std::complex<double>
//     return Error::Ok;
//   });
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

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

template <>
struct ScalarTypeOf<std::complex<float>> {
  static constexpr ScalarType value = ScalarType::ComplexFloat;
};
template <>
struct ScalarTypeOf<std::complex<double>> {
  static constexpr ScalarType value = ScalarType::ComplexDouble;
};

/// True for std::complex<float> and std::complex<double>.
template <typename T>
struct IsComplex : std::false_type {};
template <typename R>
struct IsComplex<std::complex<R>> : std::true_type {};
template <typename T>
constexpr bool is_complex_v = IsComplex<T>::value;

/// (a + bi) / (c + di) with Smith's algorithm, as c10::complex divides: the
/// ratio of the smaller to the larger divisor part keeps intermediate
/// products in range, so results match eager where the textbook formula
/// (or libgcc's __divsc3) would overflow or round differently. 0 / 0 is
/// NaN + NaN i, x / 0 is inf or NaN per part, as in eager.
template <typename R>
std::complex<R> complex_div(std::complex<R> x, std::complex<R> y) {
  const R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  const R abs_c = std::abs(c), abs_d = std::abs(d);
  if (abs_c >= abs_d) {
    if (abs_c == R(0) && abs_d == R(0)) return {a / abs_c, b / abs_d};
    const R rat = d / c;
    const R scl = R(1) / (c + d * rat);
    return {(a + b * rat) * scl, (b - a * rat) * scl};
  }
  const R rat = c / d;
  const R scl = R(1) / (d + c * rat);
  return {(a * rat + b) * scl, (b * rat - a) * scl};
}

/// a / b for any compute type, through complex_div for complex ones.
template <typename C>
C divide_values(C a, C b) {
  if constexpr (is_complex_v<C>) {
    return complex_div(a, b);
  } else {
    return a / b;
  }
}

/// x / |x| (0 for 0), as ATen's sgn for complex inputs.
template <typename R>
std::complex<R> complex_sgn(std::complex<R> x) {
  const R magnitude = std::abs(x);
  return magnitude == R(0) ? std::complex<R>(0, 0) : std::complex<R>(x.real() / magnitude, x.imag() / magnitude);
}

/// NaN in either part.
template <typename R>
bool complex_isnan(std::complex<R> x) {
  return std::isnan(x.real()) || std::isnan(x.imag());
}

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
