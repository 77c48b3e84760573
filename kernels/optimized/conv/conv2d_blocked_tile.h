// torchedge/kernels/optimized/conv/conv2d_blocked_tile.h
//
// conv2d_blocked's micro-kernel (conv/conv2d_blocked.h) written once over an
// ISA's vector operations S (conv/simd_avx2.h, conv/simd_neon.h): up to
// kMaxP output pixels x one block of 16 output channels (16 / S::kLanes
// vectors, "parts") in accumulators. AVX2 (8 lanes, 6 pixels): 12
// accumulators + 2 weights + 1 broadcast input value of the 16 ymm. NEON (4
// lanes, 5 pixels): 20 accumulators + 4 weights + 5 input vectors of the 32
// q registers: each pixel's 4 consecutive input channels are one load and
// each FMA takes its multiplier from a lane of it (S::kLaneFma, fmla by
// element), 105 instructions per 80 FMAs in the inner loop; with broadcasts
// and 6 pixels GCC spilled 2 of 24 accumulators (1.6 instructions per FMA,
// counted with QEMU's plugin). The blocks of a 64-channel group run one
// after another (their input pixels are then in L1). The AVX-512 tile
// (conv2d_blocked_tile_avx512.h) is different: it holds all four blocks of
// a group at once.
//
// Include ONLY from one ISA's translation unit, after its simd_<isa>.h; the
// tile lives in an anonymous namespace, so each includer gets its own copy
// (blocked_conv_avx2.cpp, blocked_conv_neon.cpp: the direct convolution and
// the Winograd GEMMs).
#pragma once

#include "kernels/optimized/conv/conv2d_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace {

template <typename S, int kMaxP>
struct BlockTile {
  using V = typename S::V;
  static constexpr int kParts = 16 / S::kLanes;
  static constexpr int kMaxPixels = kMaxP;
  static constexpr bool kBlocksInSequence = true;

  static void compute(int pixels, int blocks, int stride,
                      const conv2d_blocked_driver::BlockedTile& a) {
    const bool plain = a.plain_channels != 0;  // pixels `stride` floats apart
    for (int b = 0; b < blocks; ++b) {
      if (plain) {
        stride == 1 ? by_pixels<1, true>(pixels, b, a) : by_pixels<2, true>(pixels, b, a);
      } else {
        stride == 1 ? by_pixels<16, false>(pixels, b, a) : by_pixels<32, false>(pixels, b, a);
      }
    }
  }

  // tile<pixels>: 1..kMaxPixels.
  template <int kStep, bool kPlain, int kP = 1>
  static void by_pixels(int pixels, int b, const conv2d_blocked_driver::BlockedTile& a) {
    if constexpr (kP < kMaxPixels) {
      if (pixels != kP) return by_pixels<kStep, kPlain, kP + 1>(pixels, b, a);
    }
    tile<kP, kStep, kPlain>(a, b);
  }

  // kP pixels (kStep floats apart in the input) x block `b` of the group;
  // pixel p's broadcast is one displacement off the tap's base pointer.
  // Not inlined: inlined into the driver's loop, GCC spilled the
  // accumulators of all the variants (616 stack accesses).
  template <int kP, int kStep, bool kPlain>
  __attribute__((noinline)) static void tile(const conv2d_blocked_driver::BlockedTile& a, int b) {
    float* y = a.y + b * a.y_block_stride;
    V acc[kP][kParts];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
#pragma GCC unroll 4
      for (int h = 0; h < kParts; ++h) {
        const int64_t at = p * 16 + h * S::kLanes;
        acc[p][h] = a.accumulate             ? S::load(y + at)
                    : a.residual != nullptr ? S::load(a.residual + b * a.y_block_stride + at)
                                            : S::zero();
      }
    }
    const float* wp = a.w + b * 16;
    const int64_t row_stride = a.x_row_stride, kernel_h = a.kernel_h, kernel_w = a.kernel_w;
    if constexpr (kPlain) {  // a first layer's NCHW planes, x_block_stride apart
      const int64_t plane = a.x_block_stride, channels = a.plain_channels;
      for (int64_t r = 0; r < kernel_h; ++r) {
        const float* tap = a.x + r * row_stride;
        for (int64_t s = 0; s < kernel_w; ++s, ++tap, wp += a.w_tap_stride) {
          for (int64_t ci = 0; ci < channels; ++ci) {
            fma_channel<kP, kStep>(tap + ci * plane, wp + ci * 64, acc);
          }
        }
      }
    } else {
      const int64_t block_stride = a.x_block_stride, tap_stride = a.x_tap_stride;
      for (int64_t c = 0; c < a.cin_blocks; ++c) {
        for (int64_t r = 0; r < kernel_h; ++r) {
          const float* tap = a.x + c * block_stride + r * row_stride;
          for (int64_t s = 0; s < kernel_w; ++s, tap += tap_stride, wp += 1024) {
            if constexpr (S::kLaneFma) {
#pragma GCC unroll 2
              for (int ci = 0; ci < 16; ci += 4) fma_quad<kP, kStep>(tap + ci, wp + ci * 64, acc);
            } else {
#pragma GCC unroll 2
              for (int ci = 0; ci < 16; ++ci) fma_channel<kP, kStep>(tap + ci, wp + ci * 64, acc);
            }
          }
        }
      }
    }
    store<kP>(a, b, y, acc);
  }

  // One input channel: acc[p][h] += w[h] * mul(p), w the channel's 16
  // weights at wp, mul(p) pixel p's input value in every lane.
  template <int kP, typename Mul>
  __attribute__((always_inline)) static inline void fma_weights(const float* wp,
                                                                V (&acc)[kP][kParts],
                                                                const Mul& mul) {
    V w[kParts];
#pragma GCC unroll 4
    for (int h = 0; h < kParts; ++h) w[h] = S::load(wp + h * S::kLanes);
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
#pragma GCC unroll 4
      for (int h = 0; h < kParts; ++h) acc[p][h] = mul(p, w[h], acc[p][h]);
    }
  }

  // Pixel p's value broadcast from x + p * kStep.
  template <int kP, int kStep>
  __attribute__((always_inline)) static inline void fma_channel(const float* x, const float* wp,
                                                                V (&acc)[kP][kParts]) {
    fma_weights<kP>(wp, acc,
                    [x](int p, V w, V a) { return S::fma(S::broadcast(x + p * kStep), w, a); });
  }

  // Four consecutive input channels: one vector per pixel, each channel's
  // multiplier taken from its lane.
  template <int kP, int kStep>
  __attribute__((always_inline)) static inline void fma_quad(const float* x, const float* wp,
                                                             V (&acc)[kP][kParts]) {
    V xq[kP];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) xq[p] = S::load(x + p * kStep);
    // The empty asm statements keep each channel's weight loads after the
    // previous channel's FMAs: GCC hoisted them all (16 vectors besides 20
    // accumulators and 5 inputs) and spilled accumulators.
    fma_lane<0, kP>(xq, wp, acc);
    __asm__ volatile("" ::: "memory");
    fma_lane<1, kP>(xq, wp + 64, acc);
    __asm__ volatile("" ::: "memory");
    fma_lane<2, kP>(xq, wp + 128, acc);
    __asm__ volatile("" ::: "memory");
    fma_lane<3, kP>(xq, wp + 192, acc);
  }

  // Channel kLane of the quad: pixel p's multiplier is lane kLane of xq[p].
  template <int kLane, int kP>
  __attribute__((always_inline)) static inline void fma_lane(const V (&xq)[kP], const float* wp,
                                                             V (&acc)[kP][kParts]) {
    fma_weights<kP>(wp, acc,
                    [&xq](int p, V w, V a) { return S::template fma_lane<kLane>(w, xq[p], a); });
  }

  // Partial sums back to y, or (the last chunk) bias and clamp (the
  // residual started the first chunk's accumulators: see conv2d_blocked.h).
  template <int kP>
  __attribute__((always_inline)) static inline void store(
      const conv2d_blocked_driver::BlockedTile& a, int b, float* y, V (&acc)[kP][kParts]) {
    if (!a.finish) {
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
#pragma GCC unroll 4
        for (int h = 0; h < kParts; ++h) S::store(y + p * 16 + h * S::kLanes, acc[p][h]);
      }
      return;
    }
    const V lo = S::set1(a.lo), hi = S::set1(a.hi);
#pragma GCC unroll 4
    for (int h = 0; h < kParts; ++h) {
      const V bias = a.bias == nullptr ? S::zero() : S::load(a.bias + b * 16 + h * S::kLanes);
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        V v = acc[p][h];
        if (a.bias != nullptr) v = S::add(v, bias);
        // max/min take v second so a NaN stays NaN.
        S::store(y + p * 16 + h * S::kLanes, S::min(hi, S::max(lo, v)));
      }
    }
  }
};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
