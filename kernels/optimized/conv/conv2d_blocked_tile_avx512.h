// torchedge/kernels/optimized/conv/conv2d_blocked_tile_avx512.h
//
// conv2d_blocked's AVX-512 micro-kernel (conv/conv2d_blocked.h): up to 6
// output pixels x 4 blocks of 16 output channels in 24 zmm accumulators.
// Per input channel and tap: four weight vectors (256 contiguous bytes of
// the packed weights) and one broadcast per pixel, 24 FMAs for 10 loads.
// Why 6 x 4: 7 x 4 (28 accumulators, 4 weights and a broadcast: 33
// registers) spilled in GCC's code and ran slower; 6 x 4 leaves room. The
// 16 input channels of a tap are unrolled by 2 only: unrolled by 16, GCC
// hoisted the broadcasts and spilled accumulators (the 1x1 layers ran
// at a third of the speed).
// Compiled with -mavx512f/dq/bw/vl; entered only when best_isa() == kAvx512.
//
// Include ONLY from AVX512 translation units (compiled for that ISA);
// the tile lives in an anonymous namespace, so each includer gets its own
// copy (conv2d_blocked_avx512.cpp: the direct convolution;
// winograd_blocked_avx512.cpp: the Winograd GEMMs).
#pragma once

#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -Wmaybe-uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/optimized/conv/conv2d_blocked_driver.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

using conv2d_blocked_driver::BlockedTile;

struct Avx512Tile {
  static constexpr int kMaxPixels = 6;
  static constexpr bool kBlocksInSequence = false;

  static void compute(int pixels, int blocks, int stride, const BlockedTile& a) {
    if (a.plain_channels != 0) {  // a plain NCHW input: pixels `stride` floats apart
      return stride == 1 ? by_blocks<1, true>(pixels, blocks, a)
                         : by_blocks<2, true>(pixels, blocks, a);
    }
    if (stride == 1) return by_blocks<16, false>(pixels, blocks, a);
    by_blocks<32, false>(pixels, blocks, a);
  }

  template <int kStep, bool kPlain>
  static void by_blocks(int pixels, int blocks, const BlockedTile& a) {
    switch (blocks) {
      case 1: return by_pixels<1, kStep, kPlain>(pixels, a);
      case 2: return by_pixels<2, kStep, kPlain>(pixels, a);
      case 3: return by_pixels<3, kStep, kPlain>(pixels, a);
      default: return by_pixels<4, kStep, kPlain>(pixels, a);
    }
  }

  template <int kB, int kStep, bool kPlain>
  static void by_pixels(int pixels, const BlockedTile& a) {
    switch (pixels) {
      case 1: return tile<1, kB, kStep, kPlain>(a);
      case 2: return tile<2, kB, kStep, kPlain>(a);
      case 3: return tile<3, kB, kStep, kPlain>(a);
      case 4: return tile<4, kB, kStep, kPlain>(a);
      case 5: return tile<5, kB, kStep, kPlain>(a);
      default: return tile<6, kB, kStep, kPlain>(a);
    }
  }

  // kP pixels (kStep floats apart in the input) x kB blocks; every loop over
  // pixels and blocks is unrolled so the accumulators stay in registers,
  // and pixel p's broadcast is one displacement off the tap's base pointer.
  template <int kP, int kB, int kStep, bool kPlain>
  __attribute__((noinline)) static void tile(const BlockedTile& a) {
    __m512 acc[kP][kB];
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
#pragma GCC unroll 4
      for (int b = 0; b < kB; ++b) {
        const int64_t at = b * a.y_block_stride + p * 16;
        acc[p][b] = a.accumulate           ? _mm512_loadu_ps(a.y + at)
                    : a.residual != nullptr ? _mm512_loadu_ps(a.residual + at)
                                            : _mm512_setzero_ps();
      }
    }
    if constexpr (kPlain) {
      plain_sums<kP, kB, kStep>(a, acc);
    } else {
      blocked_sums<kP, kB, kStep>(a, acc);
    }
    store<kP, kB>(a, acc);
  }

  // One input channel's contribution at one tap: the weights of (ci, tap)
  // at wp, pixel p's value at x[p * kStep].
  template <int kP, int kB, int kStep>
  __attribute__((always_inline)) static inline void fma_channel(const float* x, const float* wp,
                                                                __m512 (&acc)[kP][kB]) {
    __m512 wv[kB];
#pragma GCC unroll 4
    for (int b = 0; b < kB; ++b) wv[b] = _mm512_loadu_ps(wp + b * 16);
#pragma GCC unroll 8
    for (int p = 0; p < kP; ++p) {
      const __m512 v = _mm512_set1_ps(x[p * kStep]);
#pragma GCC unroll 4
      for (int b = 0; b < kB; ++b) acc[p][b] = _mm512_fmadd_ps(v, wv[b], acc[p][b]);
    }
  }

  template <int kP, int kB, int kStep>
  __attribute__((always_inline)) static inline void blocked_sums(const BlockedTile& a, __m512 (&acc)[kP][kB]) {
    const int64_t block_stride = a.x_block_stride, row_stride = a.x_row_stride;
    const int64_t tap_stride = a.x_tap_stride, kernel_h = a.kernel_h, kernel_w = a.kernel_w;
    const float* wp = a.w;
    for (int64_t c = 0; c < a.cin_blocks; ++c) {
      for (int64_t r = 0; r < kernel_h; ++r) {
        const float* tap = a.x + c * block_stride + r * row_stride;
        for (int64_t s = 0; s < kernel_w; ++s, tap += tap_stride, wp += 1024) {
#pragma GCC unroll 2
          for (int ci = 0; ci < 16; ++ci) fma_channel<kP, kB, kStep>(tap + ci, wp + ci * 64, acc);
        }
      }
    }
  }

  // A plain NCHW input (a first layer): channel ci's plane x_block_stride
  // floats apart, the packed weights' one block of 16 input channels per
  // tap holding a.plain_channels of them.
  template <int kP, int kB, int kStep>
  __attribute__((always_inline)) static inline void plain_sums(const BlockedTile& a, __m512 (&acc)[kP][kB]) {
    const int64_t plane = a.x_block_stride, row_stride = a.x_row_stride;
    const int64_t kernel_h = a.kernel_h, kernel_w = a.kernel_w, channels = a.plain_channels;
    const float* wp = a.w;
    for (int64_t r = 0; r < kernel_h; ++r) {
      const float* tap = a.x + r * row_stride;
      for (int64_t s = 0; s < kernel_w; ++s, ++tap, wp += a.w_tap_stride) {
        for (int64_t ci = 0; ci < channels; ++ci) {
          fma_channel<kP, kB, kStep>(tap + ci * plane, wp + ci * 64, acc);
        }
      }
    }
  }

  // Partial sums back to y, or (the last chunk) bias, clamp and
  // a.activation (the residual started the first chunk's accumulators: see
  // conv2d_blocked.h). The GELU / SiLU runs on the registers about to be
  // stored, so a convolution + activation writes its output once.
  template <int kP, int kB>
  __attribute__((always_inline)) static inline void store(const BlockedTile& a,
                                                          __m512 (&acc)[kP][kB]) {
    const int64_t ys = a.y_block_stride;
    if (!a.finish) {
#pragma GCC unroll 4
      for (int b = 0; b < kB; ++b) {
#pragma GCC unroll 8
        for (int p = 0; p < kP; ++p) _mm512_storeu_ps(a.y + b * ys + p * 16, acc[p][b]);
      }
      return;
    }
    const __m512 lo = _mm512_set1_ps(a.lo), hi = _mm512_set1_ps(a.hi);
#pragma GCC unroll 4
    for (int b = 0; b < kB; ++b) {
      const __m512 bias =
          a.bias == nullptr ? _mm512_setzero_ps() : _mm512_loadu_ps(a.bias + b * 16);
#pragma GCC unroll 8
      for (int p = 0; p < kP; ++p) {
        __m512 v = acc[p][b];
        if (a.bias != nullptr) v = _mm512_add_ps(v, bias);
        // max/min take v second so a NaN stays NaN.
        v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
        if (a.activation == BlockedActivation::kGelu) v = vec_avx512::gelu_erf(v);
        if (a.activation == BlockedActivation::kSilu) v = vec_avx512::silu(v);
        _mm512_storeu_ps(a.y + b * ys + p * 16, v);
      }
    }
  }
};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
