// int8_gemm_f32_dotprod (support/int8_gemm_f32.h): the dynamic int8
// linear's GEMM on AArch64's dot-product instructions, over the raw int8
// activations (quantize_tensor_int8) and the weights as stored, plain
// [N, K] or in 16-column strips. Compiled with -march=armv8.2-a+dotprod;
// entered only when best_arm_isa() >= kDotProd.
//
// A tile is up to 4 activation rows x one 16-column strip: 16 int32x4 sums,
// 4 columns each (the output's own order, stored as they are). Per 16 k,
// each row's 16 activations are one load whose 4 lanes are sdot's by-element
// operand (vdotq_laneq_s32); the weights of 4 columns x 4 k are built per
// quad: from the strip layout two 16-bit zips of the quad's two k pairs,
// from the plain layout a 4 x 4 transpose of 32-bit lanes of the columns'
// 16-byte loads. sum_k (xq - zx) w = sum_k xq w - zx sum_k w[n] exactly in
// int32 (the column sums by sdot against ones, once per strip and call);
// then the scalar loop's epilogue, float(acc) * (x_scale * w_scale[n]) and
// + bias[n] as two roundings: the scalar loop's bits.
#include <arm_neon.h>

#include <cstring>
#include <type_traits>

#include "kernels/quantized/support/int8_gemm_f32.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kChunk = 16;  // k per step: 4 quads

// The 16 weights of 4 columns x quad q at k0 (x4: quads 0..3), column c's
// 4 k in lane c, for columns [c0, c0 + 4) of a strip.
struct StripWeights {
  const int8_t* strip;  // the strip's [round_up(K, 2) / 2][16][2] bytes
  void quads(int64_t k0, int c0, int8x16_t (&w)[4]) const {
    for (int q = 0; q < 4; ++q) {
      const int64_t pair = (k0 + 4 * q) / 2;
      const int16x4_t a = vld1_s16(reinterpret_cast<const int16_t*>(strip + pair * 32 + 2 * c0));
      const int16x4_t b =
          vld1_s16(reinterpret_cast<const int16_t*>(strip + (pair + 1) * 32 + 2 * c0));
      const int16x4x2_t z = vzip_s16(a, b);  // per column: its pair, then the next
      w[q] = vreinterpretq_s8_s16(vcombine_s16(z.val[0], z.val[1]));
    }
  }
};

struct PlainWeights {
  const int8_t* rows[kInt8GemmStrip];  // each column's [K] (a real one past N)
  void quads(int64_t k0, int c0, int8x16_t (&w)[4]) const {
    int32x4_t col[4];
    for (int c = 0; c < 4; ++c) col[c] = vreinterpretq_s32_s8(vld1q_s8(rows[c0 + c] + k0));
    // 4 x 4 transpose of 32-bit lanes: w[q] lane c = column c's quad q.
    const int32x4_t t0 = vtrn1q_s32(col[0], col[1]), t1 = vtrn2q_s32(col[0], col[1]);
    const int32x4_t t2 = vtrn1q_s32(col[2], col[3]), t3 = vtrn2q_s32(col[2], col[3]);
    w[0] = vreinterpretq_s8_s64(vtrn1q_s64(vreinterpretq_s64_s32(t0), vreinterpretq_s64_s32(t2)));
    w[1] = vreinterpretq_s8_s64(vtrn1q_s64(vreinterpretq_s64_s32(t1), vreinterpretq_s64_s32(t3)));
    w[2] = vreinterpretq_s8_s64(vtrn2q_s64(vreinterpretq_s64_s32(t0), vreinterpretq_s64_s32(t2)));
    w[3] = vreinterpretq_s8_s64(vtrn2q_s64(vreinterpretq_s64_s32(t1), vreinterpretq_s64_s32(t3)));
  }
};

// Rows [m0, m0 + MR) x the strip's 16 columns over k in [k_begin, k_end)
// (whole chunks), added into acc[row][column group].
template <int MR, typename Weights>
inline void tile_sums(const Weights& wt, const int8_t* xq, int64_t x_stride, int64_t m0,
                      int64_t k_begin, int64_t k_end, int32x4_t (&acc)[MR][4]) {
  for (int64_t k0 = k_begin; k0 < k_end; k0 += kChunk) {
    int8x16_t x[MR];
    for (int r = 0; r < MR; ++r) x[r] = vld1q_s8(xq + (m0 + r) * x_stride + k0);
#pragma GCC unroll 4
    for (int cg = 0; cg < 4; ++cg) {
      int8x16_t w[4];
      wt.quads(k0, 4 * cg, w);
      for (int r = 0; r < MR; ++r) {
        acc[r][cg] = vdotq_laneq_s32(acc[r][cg], w[0], x[r], 0);
        acc[r][cg] = vdotq_laneq_s32(acc[r][cg], w[1], x[r], 1);
        acc[r][cg] = vdotq_laneq_s32(acc[r][cg], w[2], x[r], 2);
        acc[r][cg] = vdotq_laneq_s32(acc[r][cg], w[3], x[r], 3);
      }
    }
  }
}

// One strip: `main` reads whole chunks in place up to k_main; `tail` the
// last partial chunk from a zero-padded copy (same layout, k from 0).
template <typename Weights>
void strip(const Int8GemmF32Problem& p, const int8_t* xq, int64_t x_stride, int32_t zx,
           const Weights& main, const Weights& tail, int64_t k_main, int64_t n0) {
  // Column sums: the activations' zero-point share, zx * sum_k w[n].
  int32x4_t sums[4];
  {
    const int8_t ones_x[kChunk] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    int32x4_t s[1][4];
    for (int cg = 0; cg < 4; ++cg) s[0][cg] = vdupq_n_s32(0);
    for (int64_t k0 = 0; k0 < k_main; k0 += kChunk) {
      const int8x16_t ones = vld1q_s8(ones_x);
      for (int cg = 0; cg < 4; ++cg) {
        int8x16_t w[4];
        main.quads(k0, 4 * cg, w);
        s[0][cg] = vdotq_s32(vdotq_s32(s[0][cg], w[0], ones), w[1], ones);
        s[0][cg] = vdotq_s32(vdotq_s32(s[0][cg], w[2], ones), w[3], ones);
      }
    }
    if (k_main < p.k) {
      const int8x16_t ones = vld1q_s8(ones_x);
      for (int cg = 0; cg < 4; ++cg) {
        int8x16_t w[4];
        tail.quads(0, 4 * cg, w);
        s[0][cg] = vdotq_s32(vdotq_s32(s[0][cg], w[0], ones), w[1], ones);
        s[0][cg] = vdotq_s32(vdotq_s32(s[0][cg], w[2], ones), w[3], ones);
      }
    }
    // Lane c of a weight vector is column c's quad: sdot against ones sums
    // each column's 4 bytes into its own lane.
    for (int cg = 0; cg < 4; ++cg) sums[cg] = vmulq_n_s32(s[0][cg], zx);
  }
  const int64_t valid = p.n - n0 < kInt8GemmStrip ? p.n - n0 : kInt8GemmStrip;
  float32x4_t scale[4], bias[4];
  {
    float sc[kInt8GemmStrip] = {}, b[kInt8GemmStrip] = {};
    for (int64_t c = 0; c < valid; ++c) {
      sc[c] = p.x_scale * p.w_scales[n0 + c];
      b[c] = p.bias != nullptr ? p.bias[n0 + c] : 0.0f;
    }
    for (int cg = 0; cg < 4; ++cg) {
      scale[cg] = vld1q_f32(sc + 4 * cg);
      bias[cg] = vld1q_f32(b + 4 * cg);
    }
  }
  auto rows = [&](auto mr, int64_t m0) {
    constexpr int MR = decltype(mr)::value;
    int32x4_t acc[MR][4];
    for (int r = 0; r < MR; ++r) {
      for (int cg = 0; cg < 4; ++cg) acc[r][cg] = vdupq_n_s32(0);
    }
    tile_sums<MR>(main, xq, x_stride, m0, 0, k_main, acc);
    // The activations' tail chunk: their row's padding is zeros.
    if (k_main < p.k) tile_sums<MR>(tail, xq + k_main, x_stride, m0, 0, kChunk, acc);
    for (int r = 0; r < MR; ++r) {
      float y[kInt8GemmStrip];
      for (int cg = 0; cg < 4; ++cg) {
        float32x4_t v = vmulq_f32(vcvtq_f32_s32(vsubq_s32(acc[r][cg], sums[cg])), scale[cg]);
        if (p.bias != nullptr) v = vaddq_f32(v, bias[cg]);
        vst1q_f32(y + 4 * cg, v);
      }
      std::memcpy(p.out + (m0 + r) * p.n + n0, y, static_cast<size_t>(valid) * sizeof(float));
    }
  };
  int64_t m0 = 0;
  for (; m0 + 4 <= p.m; m0 += 4) rows(std::integral_constant<int, 4>(), m0);
  switch (p.m - m0) {
    case 3: rows(std::integral_constant<int, 3>(), m0); break;
    case 2: rows(std::integral_constant<int, 2>(), m0); break;
    case 1: rows(std::integral_constant<int, 1>(), m0); break;
    default: break;
  }
}

}  // namespace

void int8_gemm_f32_dotprod(const Int8GemmF32Problem& p, const int8_t* xq, int64_t x_stride,
                           int32_t x_zero_point, int64_t strip_begin, int64_t strip_end) {
  const int64_t k_main = p.k / kChunk * kChunk;
  for (int64_t s = strip_begin; s < strip_end; ++s) {
    const int64_t n0 = s * kInt8GemmStrip;
    if (p.w_packed) {
      const int64_t strip_bytes = int8_gemm_x_stride(p.k) * kInt8GemmStrip;
      const int8_t* w = p.w + s * strip_bytes;
      // The last chunk's pairs padded with zeros (16 k = 8 pairs x 32 bytes).
      int8_t pad[kChunk / 2 * 32] = {};
      if (k_main < p.k) {
        std::memcpy(pad, w + k_main / 2 * 32, static_cast<size_t>(strip_bytes - k_main / 2 * 32));
      }
      strip(p, xq, x_stride, x_zero_point, StripWeights{w}, StripWeights{pad}, k_main, n0);
    } else {
      PlainWeights main{}, tail{};
      int8_t pad[kInt8GemmStrip][kChunk] = {};
      for (int c = 0; c < kInt8GemmStrip; ++c) {
        // Columns past N read the last one (computed, not stored).
        const int64_t n = n0 + c < p.n ? n0 + c : p.n - 1;
        main.rows[c] = p.w + n * p.k;
        if (k_main < p.k) {
          std::memcpy(pad[c], main.rows[c] + k_main, static_cast<size_t>(p.k - k_main));
        }
        tail.rows[c] = pad[c];
      }
      strip(p, xq, x_stride, x_zero_point, main, tail, k_main, n0);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
