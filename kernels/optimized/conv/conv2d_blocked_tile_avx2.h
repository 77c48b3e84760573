// torchedge/kernels/optimized/conv/conv2d_blocked_tile_avx2.h
//
// conv2d_blocked's AVX2 micro-kernel (conv/conv2d_blocked.h): up to 6
// output pixels x one block of 16 output channels (two ymm halves) in 12
// accumulators, 2 weight vectors and a broadcast: 15 of the 16 ymm. The
// blocks of a 64-channel group run one after another (their input pixels
// are then in L1). Compiled with -mavx2 -mfma; entered when best_isa() is
// kAvx2 (AVX-512 hosts take conv2d_blocked_avx512.cpp).
//
// Include ONLY from AVX2 translation units (compiled for that ISA);
// the tile lives in an anonymous namespace, so each includer gets its own
// copy (conv2d_blocked_avx2.cpp: the direct convolution;
// winograd_blocked_avx2.cpp: the Winograd GEMMs).
#pragma once

#include <immintrin.h>

#include "kernels/optimized/conv/conv2d_blocked_driver.h"

namespace torchedge {
namespace optimized {
namespace {

using conv2d_blocked_driver::BlockedTile;

struct Avx2Tile {
  static constexpr int kMaxPixels = 6;
  static constexpr bool kBlocksInSequence = true;

  static void compute(int pixels, int blocks, int stride, const BlockedTile& a) {
    const bool plain = a.plain_channels != 0;  // pixels `stride` floats apart
    for (int b = 0; b < blocks; ++b) {
      if (plain) {
        stride == 1 ? by_pixels<1, true>(pixels, b, a) : by_pixels<2, true>(pixels, b, a);
      } else {
        stride == 1 ? by_pixels<16, false>(pixels, b, a) : by_pixels<32, false>(pixels, b, a);
      }
    }
  }

  template <int kStep, bool kPlain>
  static void by_pixels(int pixels, int b, const BlockedTile& a) {
    switch (pixels) {
      case 1: return tile<1, kStep, kPlain>(a, b);
      case 2: return tile<2, kStep, kPlain>(a, b);
      case 3: return tile<3, kStep, kPlain>(a, b);
      case 4: return tile<4, kStep, kPlain>(a, b);
      case 5: return tile<5, kStep, kPlain>(a, b);
      default: return tile<6, kStep, kPlain>(a, b);
    }
  }

  // kP pixels (kStep floats apart in the input) x block `b` of the group
  // (two 8-lane halves); pixel p's broadcast is one displacement off the
  // tap's base pointer.
  // Not inlined: inlined into the driver's loop, GCC spilled the
  // accumulators of all the variants (616 stack accesses).
  template <int kP, int kStep, bool kPlain>
  __attribute__((noinline)) static void tile(const BlockedTile& a, int b) {
    float* y = a.y + b * a.y_block_stride;
    __m256 acc[kP][2];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const int64_t at = p * 16 + h * 8;
        acc[p][h] = a.accumulate             ? _mm256_loadu_ps(y + at)
                    : a.residual != nullptr ? _mm256_loadu_ps(a.residual + b * a.y_block_stride + at)
                                            : _mm256_setzero_ps();
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
#pragma GCC unroll 2
            for (int ci = 0; ci < 16; ++ci) fma_channel<kP, kStep>(tap + ci, wp + ci * 64, acc);
          }
        }
      }
    }
    store<kP>(a, b, y, acc);
  }

  template <int kP, int kStep>
  __attribute__((always_inline)) static inline void fma_channel(const float* x, const float* wp,
                                                                __m256 (&acc)[kP][2]) {
    const __m256 w0 = _mm256_loadu_ps(wp);
    const __m256 w1 = _mm256_loadu_ps(wp + 8);
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
      const __m256 v = _mm256_broadcast_ss(x + p * kStep);
      acc[p][0] = _mm256_fmadd_ps(v, w0, acc[p][0]);
      acc[p][1] = _mm256_fmadd_ps(v, w1, acc[p][1]);
    }
  }

  // Partial sums back to y, or (the last chunk) bias and clamp (the
  // residual started the first chunk's accumulators: see conv2d_blocked.h).
  template <int kP>
  __attribute__((always_inline)) static inline void store(const BlockedTile& a, int b, float* y,
                                                          __m256 (&acc)[kP][2]) {
    if (!a.finish) {
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        _mm256_storeu_ps(y + p * 16, acc[p][0]);
        _mm256_storeu_ps(y + p * 16 + 8, acc[p][1]);
      }
      return;
    }
    const __m256 lo = _mm256_set1_ps(a.lo), hi = _mm256_set1_ps(a.hi);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m256 bias =
          a.bias == nullptr ? _mm256_setzero_ps() : _mm256_loadu_ps(a.bias + b * 16 + h * 8);
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        __m256 v = acc[p][h];
        if (a.bias != nullptr) v = _mm256_add_ps(v, bias);
        // max/min take v second so a NaN stays NaN.
        _mm256_storeu_ps(y + p * 16 + h * 8, _mm256_min_ps(hi, _mm256_max_ps(lo, v)));
      }
    }
  }
};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
