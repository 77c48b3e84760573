// torchedge/kernels/quantized/support/int4_packed.h
//
// The blocked 4-bit weight layout of torchedge::linear_8da4w_packed and its
// inner loops, one per ISA (support/int4_packed_scalar.cpp,
// support/x86/int4_packed_{avx2,avx512vnni}.cpp,
// support/arm/int4_packed_dotprod.cpp).
//
// A symmetric group-wise int4 weight (q in [-8, 7], float32 scale per row n
// and group of g values along K; w = q * scale) is stored as one uint8
// tensor [ceil(N / 16), K / g, 64 + 8 g]: record (nb, gi) covers rows
// 16 nb .. 16 nb + 15 and group gi, and holds
//   bytes [0, 64)         the 16 rows' scales (float32, little endian)
//   g / 32 sub-blocks     of 256 bytes, sub-block s for k0 = gi g + 32 s:
//     byte 64 i + 4 r + b (i < 4, r < 16, b < 4) holds
//       low nibble   q[16 nb + r][k0 + 8 i + b] + 8
//       high nibble  q[16 nb + r][k0 + 8 i + 4 + b] + 8
// Rows past N are padding (q = 0, scale 0). So one 64-byte load is, per
// row, the u = q + 8 of two runs of 4 consecutive k in its 32-bit lane: the
// low nibbles are the operand of one vpdpbusd against the activations'
// 4 bytes at k0 + 8 i broadcast to every lane, the high nibbles of another
// at k0 + 8 i + 4; the 16 lanes are 16 output rows, so a group's integer
// dot products of 16 rows end in one vector, scaled by one 64-byte load of
// scales. (AVX2 takes the two 32-byte halves, rows 0-7 and 8-15.)
//
// Numerics (the 8da4w contract, support/activation_quant.h): per row m of
// int8 activations (xq, x_scale, x_zp; Sx = sum of xq over the group)
//   I[m, n, g] = sum (xq - x_zp)(u - 8) = D - x_zp Su + 8 (g x_zp - Sx)
// exactly in int32, with D = sum xq u (vpdpbusd / maddubs) and Su = sum u;
//   out[m, n] = x_scale * sum_g scale[n, g] * float(I) + bias[n]
// Every |I| and partial sum is below 2^24: float(I) is exact; only the
// float accumulation differs from eager (tests: 1e-5 of sum |x * w|).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {

constexpr int64_t kInt4PackedRows = 16;      // output rows per record
constexpr int64_t kInt4PackedSubBlock = 32;  // k per 256-byte sub-block
constexpr int64_t kInt4PackedHeader = 64;    // the scales

struct Int4PackedWeight {
  const uint8_t* data;  // [ceil(N / 16), K / g, 64 + 8 g]
  int64_t n, k, group_size;

  int64_t groups() const { return k / group_size; }
  int64_t row_blocks() const { return (n + kInt4PackedRows - 1) / kInt4PackedRows; }
  int64_t record_bytes() const { return kInt4PackedHeader + 8 * group_size; }
  const uint8_t* record(int64_t nb, int64_t gi) const {
    return data + (nb * groups() + gi) * record_bytes();
  }
  /// scale[n, gi] and q[n, k] (scalar paths and tests).
  float scale(int64_t row, int64_t gi) const {
    float s;
    std::memcpy(&s, record(row / kInt4PackedRows, gi) + 4 * (row % kInt4PackedRows), sizeof(s));
    return s;
  }
  int q(int64_t row, int64_t col) const {
    const int64_t in_group = col % group_size, kk = in_group % kInt4PackedSubBlock;
    const uint8_t byte = record(row / kInt4PackedRows, col / group_size)
        [kInt4PackedHeader + 256 * (in_group / kInt4PackedSubBlock) + 64 * (kk / 8) +
         4 * (row % kInt4PackedRows) + kk % 4];
    return ((kk % 8) < 4 ? byte & 0xF : byte >> 4) - 8;
  }
};

/// Output rows [16 nb_begin, 16 nb_end) (clipped to N) of all M rows of x.
/// x.group_sums holds Sx per (row, group); zero points are the
/// activations' (the weight is symmetric).
void int8_int4_packed_scalar(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                             float* out, int64_t nb_begin, int64_t nb_end);
#if defined(TORCHEDGE_QUANTIZED_X86)
void int8_int4_packed_avx2(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                           float* out, int64_t nb_begin, int64_t nb_end);
void int8_int4_packed_avx512vnni(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                                 float* out, int64_t nb_begin, int64_t nb_end);
#endif

#if defined(TORCHEDGE_QUANTIZED_ARM)
/// sdot (support/arm/int4_packed_dotprod.cpp): call only when
/// optimized::best_arm_isa() >= kDotProd.
void int8_int4_packed_dotprod(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                              float* out, int64_t nb_begin, int64_t nb_end);
#endif

/// The loops of quant_isa() (on AArch64: dot-product where
/// best_arm_isa() has it, else scalar), row blocks split across the
/// shared pool.
void run_int8_int4_packed_linear(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                                 float* out);

}  // namespace quantized
}  // namespace torchedge
