// torchedge/runtime/core/scalar_type.h
//
// Element types and the one table of facts about them. The enum values are
// the ET12 wire values (same as c10::ScalarType). Everything a kernel or the
// loader needs to know about a dtype (size, name, kind) is read from
// kScalarTypeInfo, never re-encoded in switches elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/half.h"

namespace torchedge {

enum class ScalarType : int8_t {
  Byte = 0,    // uint8
  Char = 1,    // int8
  Short = 2,   // int16
  Int = 3,     // int32
  Long = 4,    // int64
  Half = 5,    // float16
  Float = 6,   // float32
  Double = 7,  // float64
  ComplexHalf = 8,    // complex32: (float16 real, float16 imag)
  ComplexFloat = 9,   // complex64: (float32 real, float32 imag)
  ComplexDouble = 10, // complex128: (float64 real, float64 imag)
  Bool = 11,
  BFloat16 = 15,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

enum class ScalarKind : uint8_t { Unsupported, Bool, Integral, Floating, Complex };

struct ScalarTypeInfo {
  const char* name;  // PyTorch spelling: "float32", "int64", ...
  uint8_t size;      // bytes per element; 0 for unsupported wire values
  ScalarKind kind;
  bool is_signed;
};

/// Indexed by the wire value (0..kNumScalarTypeSlots-1).
constexpr size_t kNumScalarTypeSlots = 30;

// clang-format off
constexpr ScalarTypeInfo kScalarTypeInfo[kNumScalarTypeSlots] = {
    /* 0 */ {"uint8", 1, ScalarKind::Integral, false},
    /* 1 */ {"int8", 1, ScalarKind::Integral, true},
    /* 2 */ {"int16", 2, ScalarKind::Integral, true},
    /* 3 */ {"int32", 4, ScalarKind::Integral, true},
    /* 4 */ {"int64", 8, ScalarKind::Integral, true},
    /* 5 */ {"float16", 2, ScalarKind::Floating, true},
    /* 6 */ {"float32", 4, ScalarKind::Floating, true},
    /* 7 */ {"float64", 8, ScalarKind::Floating, true},
    /* 8 */ {"complex32", 4, ScalarKind::Complex, true},
    /* 9 */ {"complex64", 8, ScalarKind::Complex, true},
    /* 10 */ {"complex128", 16, ScalarKind::Complex, true},
    /* 11 */ {"bool", 1, ScalarKind::Bool, false},
    /* 12 */ {"qint8", 0, ScalarKind::Unsupported, true},
    /* 13 */ {"quint8", 0, ScalarKind::Unsupported, false},
    /* 14 */ {"qint32", 0, ScalarKind::Unsupported, true},
    /* 15 */ {"bfloat16", 2, ScalarKind::Floating, true},
    /* 16 */ {"quint4x2", 0, ScalarKind::Unsupported, false},
    /* 17 */ {"quint2x4", 0, ScalarKind::Unsupported, false},
    /* 18 */ {"bits1x8", 0, ScalarKind::Unsupported, false},
    /* 19 */ {"bits2x4", 0, ScalarKind::Unsupported, false},
    /* 20 */ {"bits4x2", 0, ScalarKind::Unsupported, false},
    /* 21 */ {"bits8", 0, ScalarKind::Unsupported, false},
    /* 22 */ {"bits16", 0, ScalarKind::Unsupported, false},
    /* 23 */ {"float8_e5m2", 0, ScalarKind::Unsupported, true},
    /* 24 */ {"float8_e4m3fn", 0, ScalarKind::Unsupported, true},
    /* 25 */ {"float8_e5m2fnuz", 0, ScalarKind::Unsupported, true},
    /* 26 */ {"float8_e4m3fnuz", 0, ScalarKind::Unsupported, true},
    /* 27 */ {"uint16", 2, ScalarKind::Integral, false},
    /* 28 */ {"uint32", 4, ScalarKind::Integral, false},
    /* 29 */ {"uint64", 8, ScalarKind::Integral, false},
};
// clang-format on

/// True when `raw` is a wire value torchedge can hold in a tensor.
constexpr bool is_valid_scalar_type(int raw) {
  return raw >= 0 && raw < static_cast<int>(kNumScalarTypeSlots) &&
         kScalarTypeInfo[raw].kind != ScalarKind::Unsupported;
}

constexpr const ScalarTypeInfo& info(ScalarType t) {
  return kScalarTypeInfo[static_cast<int>(t)];
}
constexpr size_t element_size(ScalarType t) { return info(t).size; }
constexpr const char* to_string(ScalarType t) { return info(t).name; }
constexpr bool is_floating(ScalarType t) { return info(t).kind == ScalarKind::Floating; }
constexpr bool is_integral(ScalarType t) { return info(t).kind == ScalarKind::Integral; }
/// Complex dtypes hold (real, imag) pairs of one floating type; kernels that
/// do not list them reject them (see kernels/portable/support/complex.h).
constexpr bool is_complex(ScalarType t) { return info(t).kind == ScalarKind::Complex; }

/// Maps a C++ element type to its ScalarType at compile time.
template <typename T>
struct ScalarTypeOf;
#define TE_SCALAR_TYPE_OF_(cpp, st) \
  template <>                       \
  struct ScalarTypeOf<cpp> {        \
    static constexpr ScalarType value = ScalarType::st; \
  }
TE_SCALAR_TYPE_OF_(uint8_t, Byte);
TE_SCALAR_TYPE_OF_(int8_t, Char);
TE_SCALAR_TYPE_OF_(int16_t, Short);
TE_SCALAR_TYPE_OF_(int32_t, Int);
TE_SCALAR_TYPE_OF_(int64_t, Long);
TE_SCALAR_TYPE_OF_(Half, Half);
TE_SCALAR_TYPE_OF_(float, Float);
TE_SCALAR_TYPE_OF_(double, Double);
TE_SCALAR_TYPE_OF_(bool, Bool);
TE_SCALAR_TYPE_OF_(BFloat16, BFloat16);
TE_SCALAR_TYPE_OF_(uint16_t, UInt16);
TE_SCALAR_TYPE_OF_(uint32_t, UInt32);
TE_SCALAR_TYPE_OF_(uint64_t, UInt64);
#undef TE_SCALAR_TYPE_OF_

}  // namespace torchedge
