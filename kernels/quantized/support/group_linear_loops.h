// torchedge/kernels/quantized/support/group_linear_loops.h
//
// The inner loops behind run_group_linear (support/group_linear.h), one set
// per ISA, and the activation operands they share. Internal to
// kernels/quantized: the dispatcher (group_linear_dispatch.cpp) builds the
// operands once per call and splits the loops' ranges across the pool.
//
// GEMV operands index activations by *weight byte*: byte b of a weight row
// holds k = 2b, 2b + 1 (kAffine4) or k = b (kInt8Channel), and a "lane" is
// 4 consecutive weight bytes (one 32-bit SIMD lane: 8 k or 4 k). Each row's
// operands are zero-padded to gemv_bytes (the row's weight bytes rounded up
// to 64), so a vector loop reads whole vectors; padded lanes have s = 0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/group_linear.h"

namespace torchedge {
namespace quantized {

struct GroupActs {
  int64_t m, k, group_size;
  int bits;  // 8 or 32
  // bits 8 (row r of an [M, K] or [M, G] array at r * K or r * G):
  const int8_t* q;      // [M, K] quantized x
  const float* s;       // [M, G] s_j
  const int32_t* sums;  // [M, G] Sx_j
  const float* s_sums;  // [M, G] s_j * Sx_j (kAffine4's min term)
  // bits 32:
  const float* x;       // [M, K]
  const float* x_sums;  // [M, G] sum of x per group (kAffine4's min term)
  // GEMV operands (M <= kGroupGemvMaxRows; row r at r * gemv_bytes, the
  // per-lane tables at r * gemv_bytes / 4); s_sums and x_sums may then be
  // read 16 values past their end. bits 8: q at the k of each weight
  // byte's low nibble (kAffine4) or q itself (kInt8Channel), q at the high
  // nibble's k (kAffine4), s_j of each lane, and (kInt8Channel) -128 * the
  // lane's sum of q (the AVX-512 loop's u8 offset); bits 32: x likewise.
  int64_t gemv_bytes;
  const int8_t* q_lo;
  const int8_t* q_hi;
  const float* x_lo;
  const float* x_hi;
  const float* lane_s;
  const int32_t* lane_c;
};

/// p[i] (float16 bits) as float; out of line in the baseline translation
/// unit (group_linear_scalar.cpp), so SIMD files share it without
/// instantiating half.h's conversion with their ISA flags.
float group_half_at(const uint16_t* p, int64_t i);

/// Output rows [n_begin, n_end) of every activation row (any M; the
/// reference the SIMD loops are tested against).
void group_linear_scalar(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                         float* out, int64_t n_begin, int64_t n_end);

/// GEMM loops work on strips of output columns: `columns` per strip, a
/// per-worker panel of panel_bytes(w, bits) bytes of scratch.
struct GroupGemmLoops {
  int64_t columns;
  size_t (*panel_bytes)(const GroupLinearWeight& w, int bits);
  void (*run)(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
              int64_t strip_begin, int64_t strip_end, void* panel);
};

#if defined(TORCHEDGE_QUANTIZED_X86)
/// M <= kGroupGemvMaxRows: output rows [n_begin, n_end) of every row.
void group_gemv_avx2(const GroupActs& a, const GroupLinearWeight& w, const float* bias, float* out,
                     int64_t n_begin, int64_t n_end);
void group_gemv_avx512vnni(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                           float* out, int64_t n_begin, int64_t n_end);
GroupGemmLoops group_gemm_avx2(int bits);
GroupGemmLoops group_gemm_avx512vnni(int bits);
/// The float (bits 32) halves of those (group_gemm_f32_*.cpp).
size_t group_gemm_f32_avx2_panel_bytes(const GroupLinearWeight& w, int bits);
void group_gemm_f32_avx2(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                         float* out, int64_t strip_begin, int64_t strip_end, void* panel);
size_t group_gemm_f32_avx512vnni_panel_bytes(const GroupLinearWeight& w, int bits);
void group_gemm_f32_avx512vnni(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                               float* out, int64_t strip_begin, int64_t strip_end, void* panel);

/// quantize_rows_per_group's row loop, 8 values at a time (the same bits).
void quantize_row_per_group_avx2(const float* x, int64_t k, int64_t group_size, int8_t* q, float* s,
                                 int32_t* sums);
#endif

#if defined(TORCHEDGE_QUANTIZED_ARM)
/// bits 8, any M: output rows [n_begin, n_end) of every row with sdot
/// (support/arm/group_linear_dotprod.cpp); call only when
/// optimized::best_arm_isa() >= kDotProd.
void group_linear_dotprod(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                          float* out, int64_t n_begin, int64_t n_end);
/// quantize_rows_per_group's row loop on NEON (support/arm/
/// activation_quant_neon.cpp; group_size a multiple of 16): the same bits.
void quantize_row_per_group_neon(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* s, int32_t* sums);
#endif

}  // namespace quantized
}  // namespace torchedge
