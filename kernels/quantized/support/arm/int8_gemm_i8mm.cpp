// run_int8_gemm_i8mm (support/int8_gemm_dot.h): quantized_linear's int8
// GEMM on AArch64's int8 matrix multiply (SMMLA). Compiled with
// -march=armv8.2-a+dotprod+i8mm; entered only when best_arm_isa() >= kI8mm.
#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/arm/int8_gemm_tiles.h"
#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_gemm_dot.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kRowBlock = kInt8GemmRows;  // 4 row pairs
constexpr int64_t kStep = 8;      // k per smmla
constexpr int64_t kStepBytes = kRowBlock * kStep;

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }
int64_t steps_of(int64_t k) { return (k + kStep - 1) / kStep; }
int64_t row_blocks_of(int64_t m) { return (m + kRowBlock - 1) / kRowBlock; }
size_t packed_bytes(int64_t m, int64_t k) {
  return round_up_64(static_cast<size_t>(row_blocks_of(m) * steps_of(k) * kStepBytes));
}

// xq [m, k] -> [row block][step][row pair][2 rows][8 k]: each 16-byte load
// of the kernel is smmla's first operand, 2 rows x 8 k.
void pack_rows(const int8_t* xq, int64_t m, int64_t k, int8_t* packed) {
  const int64_t steps = steps_of(k);
  std::memset(packed, 0, static_cast<size_t>(row_blocks_of(m) * steps * kStepBytes));
  for (int64_t row = 0; row < m; ++row) {
    const int64_t block = row / kRowBlock, within = row % kRowBlock;
    const int8_t* src = xq + row * k;
    int8_t* dst = packed + block * steps * kStepBytes + within * kStep;
    const int64_t whole = k / kStep;  // 8-byte copies; a shorter last one
    for (int64_t s = 0; s < whole; ++s) std::memcpy(dst + s * kStepBytes, src + s * kStep, kStep);
    if (whole < steps) {
      std::memcpy(dst + whole * kStepBytes, src + whole * kStep,
                  static_cast<size_t>(k - whole * kStep));
    }
  }
}

// Columns c0 and c1's 8 weights at k0 as smmla's second operand (2 x 8);
// past k the bytes are zeros (kTail), so no load runs past the tensor.
template <bool kTail>
inline int8x16_t column_pair(const int8_t* w0, const int8_t* w1, int64_t k, int64_t k0) {
  if constexpr (!kTail) return vcombine_s8(vld1_s8(w0 + k0), vld1_s8(w1 + k0));
  int8_t tail[16] = {};
  std::memcpy(tail, w0 + k0, static_cast<size_t>(k - k0));
  std::memcpy(tail + 8, w1 + k0, static_cast<size_t>(k - k0));
  return vld1q_s8(tail);
}

// acc[rp][cp] += the step's row pair rp x column pair cp.
template <int kPairs, bool kTail>
inline void step(const int8_t* xs, const int8_t* const (&w)[2 * kPairs], int64_t k, int64_t k0,
                 int32x4_t (&acc)[4][kPairs]) {
  int8x16_t x[4];
  for (int rp = 0; rp < 4; ++rp) x[rp] = vld1q_s8(xs + rp * 16);
#pragma GCC unroll 4
  for (int cp = 0; cp < kPairs; ++cp) {
    const int8x16_t wv = column_pair<kTail>(w[2 * cp], w[2 * cp + 1], k, k0);
#pragma GCC unroll 4
    for (int rp = 0; rp < 4; ++rp) acc[rp][cp] = vmmlaq_s32(acc[rp][cp], x[rp], wv);
  }
}

// Rows [block * 8, +8) x columns cols[0..2 kPairs) (a column past n repeats
// a real one: its sums are computed and not stored).
template <int kPairs>
void tile(const Int8GemmProblem& p, const int8_t* packed, const int32_t* corrections,
          int64_t block, const int64_t (&cols)[2 * kPairs]) {
  const int8_t* w[2 * kPairs];
  for (int c = 0; c < 2 * kPairs; ++c) w[c] = p.w + cols[c] * p.k;
  int32x4_t acc[4][kPairs];
  for (auto& row : acc) {
    for (int32x4_t& a : row) a = vdupq_n_s32(0);
  }
  const int64_t steps = steps_of(p.k), full = p.k / kStep;
  const int8_t* xs = packed + block * steps * kStepBytes;
  for (int64_t s = 0; s < full; ++s, xs += kStepBytes) step<kPairs, false>(xs, w, p.k, s * kStep, acc);
  if (full < steps) step<kPairs, true>(xs, w, p.k, full * kStep, acc);

  for (int cp = 0; cp < kPairs; ++cp) {
    const int64_t c0 = cols[2 * cp], c1 = cols[2 * cp + 1];
    const ChannelRequant r0(p.in_scale, p.w_scales[c0], p.bias != nullptr ? p.bias + c0 : nullptr,
                            p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
    ChannelRequant rq(p.in_scale, p.w_scales[c1], p.bias != nullptr ? p.bias + c1 : nullptr,
                      p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
    // smmla's lanes are (row, column) = (0, c0), (0, c1), (1, c0), (1, c1):
    // the per-column factors interleaved the same way (trn1 of the two).
    rq.scale = vtrn1q_f32(r0.scale, rq.scale);
    rq.bias = vtrn1q_f32(r0.bias, rq.bias);
    const int32x4_t corr =
        vtrn1q_s32(vdupq_n_s32(corrections[c0]), vdupq_n_s32(corrections[c1]));
    const bool second = c1 != c0;  // a lone last column pairs with itself
    for (int rp = 0; rp < 4; ++rp) {
      int32_t q[4];
      vst1q_s32(q, rq(vsubq_s32(acc[rp][cp], corr)));
      for (int lane = 0; lane < 4; ++lane) {
        const int64_t row = block * kRowBlock + rp * 2 + lane / 2;
        if (row >= p.m || (lane % 2 == 1 && !second)) continue;
        p.out[row * p.n + (lane % 2 == 0 ? c0 : c1)] = static_cast<int8_t>(q[lane]);
      }
    }
  }
}

}  // namespace

size_t int8_gemm_i8mm_scratch_bytes(int64_t m, int64_t n, int64_t k) {
  return packed_bytes(m, k) + round_up_64(sizeof(int32_t) * static_cast<size_t>(n));
}

void run_int8_gemm_i8mm(const Int8GemmProblem& p, const int8_t* xq, int32_t x_zero_point,
                        const int32_t* weight_sums, void* scratch) {
  // Fewer than kInt8GemvRows rows: the sdot row loop (SMMLA's row pairs
  // would multiply padding rows).
  if (p.m < kInt8GemvRows) return run_int8_gemv_dot(p, xq, x_zero_point, weight_sums, scratch);
  int8_t* packed = static_cast<int8_t*>(scratch);
  int32_t* corrections =
      reinterpret_cast<int32_t*>(static_cast<char*>(scratch) + packed_bytes(p.m, p.k));
  pack_rows(xq, p.m, p.k, packed);
  int8_gemm_zero_point_corrections(p, x_zero_point, weight_sums, corrections);
  for_each_int8_gemm_tile(
      p,
      [&](int64_t block, int64_t n0) {
        const int64_t cols[8] = {n0, n0 + 1, n0 + 2, n0 + 3, n0 + 4, n0 + 5, n0 + 6, n0 + 7};
        tile<4>(p, packed, corrections, block, cols);
      },
      [&](int64_t block, int64_t n0) {
        // A pair at a time; an odd last column pairs with itself.
        for (int64_t c = n0; c < p.n; c += 2) {
          const int64_t cols[2] = {c, std::min(c + 1, p.n - 1)};
          tile<1>(p, packed, corrections, block, cols);
        }
      });
}

}  // namespace quantized
}  // namespace torchedge
