// torchedge/kernels/quantized/support/int4_linear.h
//
// Inner loops of the 4-bit group-wise linear kernels, one set per ISA.
//
// Packed weight (the quantization contract): signed int4 q in [-8, 7], two
// per byte along K, byte[n, j] = (q[n, 2j] & 0xF) | (q[n, 2j+1] << 4);
// scales float32 [N, K/g]; zero points int8 [N, K/g] or absent;
// w[n, k] = (q[n, k] - zp[n, k/g]) * scale[n, k/g]. K % g == 0, g % 32 == 0.
//
// Every function computes output columns [n_begin, n_end) of all M rows
// (row-major x [M, K] and out [M, N]); callers split N across threads.
#pragma once

#include <cstdint>

namespace torchedge {
namespace quantized {

struct Int4Weight {
  const uint8_t* packed;       // [N, K / 2]
  const float* scales;         // [N, K / g]
  const int8_t* zero_points;   // [N, K / g] or nullptr (all zero)
  int64_t n, k, group_size;
};

/// Float activations (weight-only). When the weight has zero points,
/// `group_sums` holds sum_k x[m, k] over each group ([M, K / g]); else null.
struct FloatRows {
  const float* x;  // [M, K]
  const float* group_sums;
  int64_t m;
};

/// Per-token asymmetric int8 activations (8da4w): x ~ (q - zp) * scale.
struct Int8Rows {
  const int8_t* q;             // [M, K]
  const float* scales;         // [M]
  const int32_t* zero_points;  // [M]
  const int32_t* group_sums;   // [M, K / g]: sum of q over each group
  int64_t m;
};

void int4_linear_f32_scalar(const FloatRows& x, const Int4Weight& w, const float* bias,
                            float* out, int64_t n_begin, int64_t n_end);
void int8_int4_linear_scalar(const Int8Rows& x, const Int4Weight& w, const float* bias,
                             float* out, int64_t n_begin, int64_t n_end);
#if defined(TORCHEDGE_QUANTIZED_X86)
void int4_linear_f32_avx2(const FloatRows& x, const Int4Weight& w, const float* bias, float* out,
                          int64_t n_begin, int64_t n_end);
void int8_int4_linear_avx2(const Int8Rows& x, const Int4Weight& w, const float* bias,
                           float* out, int64_t n_begin, int64_t n_end);
void int8_int4_linear_avx512vnni(const Int8Rows& x, const Int4Weight& w, const float* bias,
                                 float* out, int64_t n_begin, int64_t n_end);
#endif
#if defined(TORCHEDGE_QUANTIZED_ARM)
/// sdot (support/arm/int4_linear_dotprod.cpp): the scalar loop's bits;
/// call only when optimized::best_arm_isa() >= kDotProd.
void int8_int4_linear_dotprod(const Int8Rows& x, const Int4Weight& w, const float* bias,
                              float* out, int64_t n_begin, int64_t n_end);
#endif

/// q[n, k] of a packed weight row (for the scalar paths and tests).
inline int unpack_int4(const uint8_t* row, int64_t k) {
  const int nibble = (row[k >> 1] >> ((k & 1) * 4)) & 0xF;
  return (nibble ^ 8) - 8;  // sign-extend 4 bits
}

}  // namespace quantized
}  // namespace torchedge
