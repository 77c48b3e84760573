// torchedge/runtime/core/half.h
//
// Storage types for 16-bit floats. Arithmetic happens in float: kernels
// convert on load and round-to-nearest-even on store, which is what eager
// PyTorch on CPU does for elementwise ops.
#pragma once

#include <cstdint>
#include <cstring>

namespace torchedge {

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  /* implicit */ BFloat16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN stays a quiet NaN
      bits = 0x7fc0;
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
      bits = static_cast<uint16_t>(u >> 16);
    }
  }
  /* implicit */ operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
};

struct Half {
  uint16_t bits = 0;
  Half() = default;
  /* implicit */ Half(float f) { bits = from_float(f); }
  /* implicit */ operator float() const { return to_float(bits); }

 private:
  static uint16_t from_float(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
    if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (x < 0x38800000u) {  // subnormal or zero in half
      if (x < 0x33000000u) return static_cast<uint16_t>(sign);
      const uint32_t mant = (x & 0x007fffffu) | 0x00800000u;
      const int shift = 126 - static_cast<int>(x >> 23);  // 14..24
      uint32_t half_mant = mant >> shift;
      const uint32_t rem = mant & ((1u << shift) - 1u);
      const uint32_t halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
      return static_cast<uint16_t>(sign | half_mant);
    }
    uint32_t h = ((x >> 13) - (112u << 10));
    const uint32_t rem = x & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t out;
    if (exp == 0x1f) {
      out = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
      if (mant == 0) {
        out = sign;
      } else {  // normalize the subnormal
        exp = 113;
        while ((mant & 0x400u) == 0) {
          mant <<= 1;
          --exp;
        }
        out = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
      }
    } else {
      out = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &out, 4);
    return f;
  }
};

}  // namespace torchedge
