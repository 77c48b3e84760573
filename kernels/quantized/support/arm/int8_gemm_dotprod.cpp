// run_int8_gemm_dot (support/int8_gemm_dot.h): quantized_linear's int8 GEMM
// on AArch64's dot-product instructions. Compiled with
// -march=armv8.2-a+dotprod; entered only when best_arm_isa() >= kDotProd.
#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/arm/int8_gemm_tiles.h"
#include "kernels/quantized/support/arm/requantize_neon.h"
#include "kernels/quantized/support/int8_gemm_dot.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kRowBlock = kInt8GemmRows;  // two groups of 4 rows (one int32x4 each)
constexpr int64_t kColTile = kInt8GemmCols;
constexpr int64_t kChunk = 16;     // k per step: 4 quads
constexpr int64_t kChunkBytes = kRowBlock * kChunk;

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }
int64_t chunks_of(int64_t k) { return (k + kChunk - 1) / kChunk; }
int64_t row_blocks_of(int64_t m) { return (m + kRowBlock - 1) / kRowBlock; }

// xq [m, k] -> [row block][chunk][group][quad][4 rows][4 k]: each 16-byte
// load of the kernel is 4 rows x one quad. Whole quads move as one 4-byte
// copy (a load and a store); only a row's last partial quad is shorter.
void pack_rows(const int8_t* xq, int64_t m, int64_t k, int8_t* packed) {
  const int64_t chunks = chunks_of(k);
  std::memset(packed, 0, static_cast<size_t>(row_blocks_of(m) * chunks * kChunkBytes));
  const int64_t whole = k / 4 * 4;
  for (int64_t row = 0; row < m; ++row) {
    const int64_t block = row / kRowBlock, group = (row % kRowBlock) / 4, r = row % 4;
    const int8_t* src = xq + row * k;
    int8_t* dst = packed + block * chunks * kChunkBytes + group * 64 + r * 4;
    for (int64_t k0 = 0; k0 < whole; k0 += 4) {
      std::memcpy(dst + (k0 / kChunk) * kChunkBytes + (k0 % kChunk) * 4, src + k0, 4);
    }
    if (whole < k) {
      std::memcpy(dst + (whole / kChunk) * kChunkBytes + (whole % kChunk) * 4, src + whole,
                  static_cast<size_t>(k - whole));
    }
  }
}

// 16 weight bytes of column n at k0 (zeros past k: the last row's load must
// not run past the tensor).
template <bool kTail>
inline int8x16_t weight_chunk(const int8_t* w, int64_t k, int64_t k0) {
  if constexpr (!kTail) return vld1q_s8(w + k0);
  int8_t tail[kChunk] = {};
  std::memcpy(tail, w + k0, static_cast<size_t>(k - k0));
  return vld1q_s8(tail);
}

}  // namespace

void int8_gemm_zero_point_corrections(const Int8GemmProblem& p, int32_t zx,
                                      const int32_t* weight_sums, int32_t* corrections) {
  if (weight_sums != nullptr) {
    for (int64_t n = 0; n < p.n; ++n) corrections[n] = zx * weight_sums[n];
    return;
  }
  const int8x16_t ones = vdupq_n_s8(1);
  const int64_t full = p.k / kChunk * kChunk;
  for (int64_t n = 0; n < p.n; ++n) {
    const int8_t* w = p.w + n * p.k;
    int32x4_t s = vdupq_n_s32(0);
    for (int64_t k0 = 0; k0 < full; k0 += kChunk) s = vdotq_s32(s, weight_chunk<false>(w, p.k, k0), ones);
    if (full < p.k) s = vdotq_s32(s, weight_chunk<true>(w, p.k, full), ones);
    corrections[n] = zx * vaddvq_s32(s);
  }
}

namespace {

// One 16-k chunk of rows [block * 8, +8) x kCols columns: 8 activation
// loads, kCols weight loads, 8 kCols sdot.
template <int kCols, bool kTail>
inline void chunk_sums(const int8_t* xs, const int8_t* const (&w)[kCols], int64_t k, int64_t k0,
                       int32x4_t (&acc)[kCols][2]) {
  int8x16_t x[2][4];
  for (int g = 0; g < 2; ++g) {
    for (int q = 0; q < 4; ++q) x[g][q] = vld1q_s8(xs + g * 64 + q * 16);
  }
#pragma GCC unroll 8
  for (int col = 0; col < kCols; ++col) {
    const int8x16_t wv = weight_chunk<kTail>(w[col], k, k0);
#pragma GCC unroll 2
    for (int g = 0; g < 2; ++g) {
      acc[col][g] = vdotq_laneq_s32(acc[col][g], x[g][0], wv, 0);
      acc[col][g] = vdotq_laneq_s32(acc[col][g], x[g][1], wv, 1);
      acc[col][g] = vdotq_laneq_s32(acc[col][g], x[g][2], wv, 2);
      acc[col][g] = vdotq_laneq_s32(acc[col][g], x[g][3], wv, 3);
    }
  }
}

// Rows [block * 8, +8) x columns [n0, n0 + kCols) of sums: the whole chunks
// without a bounds check, then the last partial one.
template <int kCols>
void tile_sums(const Int8GemmProblem& p, const int8_t* xs, int64_t n0, int32x4_t (&acc)[kCols][2]) {
  for (int c = 0; c < kCols; ++c) acc[c][0] = acc[c][1] = vdupq_n_s32(0);
  const int8_t* w[kCols];
  for (int c = 0; c < kCols; ++c) w[c] = p.w + (n0 + c) * p.k;
  const int64_t full = p.k / kChunk;
  for (int64_t c = 0; c < full; ++c, xs += kChunkBytes) {
    chunk_sums<kCols, false>(xs, w, p.k, c * kChunk, acc);
  }
  if (full * kChunk < p.k) chunk_sums<kCols, true>(xs, w, p.k, full * kChunk, acc);
}

template <int kCols>
void tile(const Int8GemmProblem& p, const int8_t* packed, const int32_t* corrections,
          int64_t block, int64_t n0) {
  int32x4_t acc[kCols][2];
  tile_sums<kCols>(p, packed + block * chunks_of(p.k) * kChunkBytes, n0, acc);
  for (int col = 0; col < kCols; ++col) {
    const int64_t n = n0 + col;
    const ChannelRequant rq(p.in_scale, p.w_scales[n], p.bias != nullptr ? p.bias + n : nullptr,
                            p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max);
    const int32x4_t corr = vdupq_n_s32(corrections[n]);
    for (int g = 0; g < 2; ++g) {
      int32_t q[4];
      vst1q_s32(q, rq(vsubq_s32(acc[col][g], corr)));
      for (int r = 0; r < 4; ++r) {
        const int64_t row = block * kRowBlock + g * 4 + r;
        if (row < p.m) p.out[row * p.n + n] = static_cast<int8_t>(q[r]);
      }
    }
  }
}

}  // namespace

namespace {

// The one-row product (M < kInt8GemvRows): each row against 8 weight
// columns as they are stored, 16 k per sdot (plain vdotq_s32: the row's 16
// bytes against a column's 16), 8 column accumulators reduced to two
// int32x4 of column sums by pairwise adds; no packing, and no 8-row block
// with M - 8 rows of padding (a 1280 x 1000 classifier: 80K sdot, not 640K).
constexpr int kGemvCols = 8;

// Row `x` (k bytes) against columns w[0..7] (k bytes each): int32 sums of
// columns 0-3 and 4-7. The last partial chunk reads through zero-padded
// copies (no load past a row).
inline void gemv_sums(const int8_t* x, const int8_t* const (&w)[kGemvCols], int64_t k,
                      int32x4_t* lo, int32x4_t* hi) {
  int32x4_t acc[kGemvCols];
  for (int c = 0; c < kGemvCols; ++c) acc[c] = vdupq_n_s32(0);
  const int64_t full = k / kChunk * kChunk;
  for (int64_t k0 = 0; k0 < full; k0 += kChunk) {
    const int8x16_t xv = vld1q_s8(x + k0);
#pragma GCC unroll 8
    for (int c = 0; c < kGemvCols; ++c) acc[c] = vdotq_s32(acc[c], vld1q_s8(w[c] + k0), xv);
  }
  if (full < k) {
    const int8x16_t xv = weight_chunk<true>(x, k, full);
    for (int c = 0; c < kGemvCols; ++c) {
      acc[c] = vdotq_s32(acc[c], weight_chunk<true>(w[c], k, full), xv);
    }
  }
  *lo = vpaddq_s32(vpaddq_s32(acc[0], acc[1]), vpaddq_s32(acc[2], acc[3]));
  *hi = vpaddq_s32(vpaddq_s32(acc[4], acc[5]), vpaddq_s32(acc[6], acc[7]));
}

// Columns [n0, n0 + cols) (cols <= 8) of row `row`: sums, minus the
// corrections, requantize() on the lanes (each lane its column's factors).
void gemv_tile(const Int8GemmProblem& p, const int8_t* xq, const int32_t* corrections,
               int64_t row, int64_t n0, int64_t cols) {
  const int8_t* w[kGemvCols];
  float scale[kGemvCols], bias[kGemvCols];
  int32_t corr[kGemvCols];
  for (int c = 0; c < kGemvCols; ++c) {
    const int64_t n = n0 + std::min<int64_t>(c, cols - 1);  // repeat the last column
    w[c] = p.w + n * p.k;
    scale[c] = p.in_scale * p.w_scales[n];
    bias[c] = p.bias != nullptr ? p.bias[n] : 0.0f;
    corr[c] = corrections[n];
  }
  int32x4_t lo, hi;
  gemv_sums(xq + row * p.k, w, p.k, &lo, &hi);
  const ChannelRequant consts(p.in_scale, 1.0f, nullptr, p.inv_out_scale, p.out_zero_point,
                              p.quant_min, p.quant_max);
  const bool has_bias = p.bias != nullptr;
  const int32x4_t q0 = requantize_lanes(vsubq_s32(lo, vld1q_s32(corr)), vld1q_f32(scale),
                                        vld1q_f32(bias), has_bias, consts);
  const int32x4_t q1 = requantize_lanes(vsubq_s32(hi, vld1q_s32(corr + 4)),
                                        vld1q_f32(scale + 4), vld1q_f32(bias + 4), has_bias,
                                        consts);
  const int8x8_t bytes = vmovn_s16(vcombine_s16(vmovn_s32(q0), vmovn_s32(q1)));
  int8_t* out = p.out + row * p.n + n0;
  if (cols == kGemvCols) {
    vst1_s8(out, bytes);
  } else {
    int8_t tmp[kGemvCols];
    vst1_s8(tmp, bytes);
    std::memcpy(out, tmp, static_cast<size_t>(cols));
  }
}

}  // namespace

void run_int8_gemv_dot(const Int8GemmProblem& p, const int8_t* xq, int32_t x_zero_point,
                       const int32_t* weight_sums, void* scratch) {
  int32_t* corrections = static_cast<int32_t*>(scratch);
  int8_gemm_zero_point_corrections(p, x_zero_point, weight_sums, corrections);
  const int64_t tiles = (p.n + kGemvCols - 1) / kGemvCols;
  // ~64K multiply-adds per chunk of column tiles at least.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / (kGemvCols * p.k * p.m));
  parallel_for(0, tiles, grain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n0 = t * kGemvCols, cols = std::min<int64_t>(kGemvCols, p.n - n0);
      for (int64_t row = 0; row < p.m; ++row) gemv_tile(p, xq, corrections, row, n0, cols);
    }
  });
}

size_t int8_gemm_dot_scratch_bytes(int64_t m, int64_t n, int64_t k) {
  return round_up_64(static_cast<size_t>(row_blocks_of(m) * chunks_of(k) * kChunkBytes)) +
         round_up_64(sizeof(int32_t) * static_cast<size_t>(n));
}

void run_int8_gemm_dot(const Int8GemmProblem& p, const int8_t* xq, int32_t x_zero_point,
                       const int32_t* weight_sums, void* scratch) {
  if (p.m < kInt8GemvRows) return run_int8_gemv_dot(p, xq, x_zero_point, weight_sums, scratch);
  int8_t* packed = static_cast<int8_t*>(scratch);
  int32_t* corrections = reinterpret_cast<int32_t*>(
      static_cast<char*>(scratch) +
      round_up_64(static_cast<size_t>(row_blocks_of(p.m) * chunks_of(p.k) * kChunkBytes)));
  pack_rows(xq, p.m, p.k, packed);
  int8_gemm_zero_point_corrections(p, x_zero_point, weight_sums, corrections);
  for_each_int8_gemm_tile(
      p, [&](int64_t block, int64_t n0) { tile<kColTile>(p, packed, corrections, block, n0); },
      [&](int64_t block, int64_t n0) {
        for (int64_t n = n0; n < p.n; ++n) tile<1>(p, packed, corrections, block, n);
      });
}

}  // namespace quantized
}  // namespace torchedge
