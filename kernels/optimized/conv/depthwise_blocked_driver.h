// torchedge/kernels/optimized/conv/depthwise_blocked_driver.h
//
// The loops of conv2d_depthwise_blocked (depthwise_blocked.h) as templates
// over one ISA's vector operations:
//
//   struct Isa {
//     using V = ...;                      // kLanes floats
//     static constexpr int kLanes;        // 16 (zmm) or 8 (ymm: a pixel in two halves)
//     static constexpr int kMaxPixels;    // output pixels per interior tile (<= 16)
//     static V load(const float*); static void store(float*, V);
//     static V zero(); static V set1(float);
//     static V fma(V a, V b, V c);        // a * b + c, one rounding
//     static V add(V, V); static V min(V, V); static V max(V, V);  // min/max: the
//                                         //   second operand when either is NaN
//     static void in_register(V&);        // an empty asm: v stays a register
//   };
//
// Per output row: the kernel rows inside the input (the others are
// skipped), then the pixels whose taps stay inside the input width in
// near-equal tiles of up to kMaxPixels (no checks; accumulators in
// registers), and the border pixels one by one with their taps clipped. A
// 3- or 5-wide filter at stride 1 or 2 streams each kernel row's input
// pixels once through the tile, every pixel feeding all the taps that read
// it (3x3 stride 1, 8 pixels: 10 input loads and 3 weight loads per kernel
// row for 24 FMAs, against 24 + 3 tap by tap; GCC folded the loads into
// the FMAs until Isa::in_register pinned them: ~20% on stride-1 layers
// whose input is not 64-byte aligned, every load then split across two
// lines); other filters go tap by tap. Why wide tiles: a pixel's taps are
// one chain of dependent FMAs (9 x 4 cycles for 3x3), so 8 pixels at 2
// FMAs per cycle only just hide the latency; the zmm build's 16 (21 of 32
// registers) ran stride-1 layers 10-15% faster. The tiles are kept out of
// line (`noinline`): the rule of conv2d_blocked_driver.h, where GCC
// spilled accumulators of tiles inlined into the driver's loops.
//
// Include this header ONLY from one ISA's translation unit
// (depthwise_blocked_<isa>.cpp) and instantiate it with a struct from that
// file's anonymous namespace: everything here is a template or static, so
// each ISA gets its own copies.
#pragma once

#include "kernels/optimized/conv/depthwise_blocked.h"
#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace optimized {
namespace depthwise_blocked_driver {

constexpr int64_t kBlock = 16;  // channels per pixel

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

// One output row's operands (one channel block of one image).
struct Row {
  const float* x;      // input row of the first kernel row inside the input, column 0
  int64_t x_row;       // floats between input rows
  int64_t rows;        // kernel rows inside the input (0: the output is clamp(bias))
  const float* w;      // that kernel row's weights, [rows][kernel_w][16] from here
  int64_t kernel_w, stride_w, pad_w, in_w;
  const float* bias;   // the block's 16 biases, or null
  float lo, hi;
  float* y;            // the output row, column 0
};

// bias, clamp and store of kP finished pixels (lanes `off` of each).
template <typename I, int kP>
__attribute__((always_inline)) static inline void finish(const Row& r, int off,
                                                         typename I::V (&acc)[kP], float* y) {
  const typename I::V lo = I::set1(r.lo), hi = I::set1(r.hi);
  const bool has_bias = r.bias != nullptr;  // read once: the stores may alias r for GCC
  const typename I::V b = has_bias ? I::load(r.bias + off) : I::zero();
#pragma GCC unroll 16
  for (int p = 0; p < kP; ++p) {
    typename I::V v = acc[p];
    if (has_bias) v = I::add(v, b);
    // max / min take v second so a NaN stays NaN.
    I::store(y + p * kBlock, I::min(hi, I::max(lo, v)));
  }
}

// kP interior output pixels from x (the first pixel's first tap in the
// first kernel row) to y. kKW / kS: the filter width and stride when fixed
// at compile time (then streamed), or 0 (read from r, tap by tap).
template <typename I, int kP, int kKW, int kS>
__attribute__((noinline)) static void tile(const Row& r, const float* x, float* y) {
  using V = typename I::V;
  const int64_t kernel_w = kKW > 0 ? kKW : r.kernel_w;
  const int64_t step = (kS > 0 ? kS : r.stride_w) * kBlock;  // one pixel's input to the next
  for (int off = 0; off < kBlock; off += I::kLanes) {
    V acc[kP];
#pragma GCC unroll 16
    for (int p = 0; p < kP; ++p) acc[p] = I::zero();
    const float* xr = x + off;
    const float* wr = r.w + off;
    for (int64_t i = 0; i < r.rows; ++i, xr += r.x_row, wr += kernel_w * kBlock) {
      if constexpr (kKW > 0 && kS > 0) {
        V wv[kKW];
#pragma GCC unroll 8
        for (int k = 0; k < kKW; ++k) wv[k] = I::load(wr + k * kBlock);
        // Input pixel j feeds output pixel p at tap k = j - p * kS; for a
        // fixed p the taps arrive in increasing k (the (kh, kw) order).
        constexpr int kInputs = (kP - 1) * kS + kKW;
#pragma GCC unroll 64
        for (int j = 0; j < kInputs; ++j) {
          V v = I::load(xr + j * kBlock);
          I::in_register(v);
#pragma GCC unroll 8
          for (int k = 0; k < kKW; ++k) {
            const int d = j - k;
            if (d >= 0 && d % kS == 0 && d / kS < kP) acc[d / kS] = I::fma(v, wv[k], acc[d / kS]);
          }
        }
      } else {
        for (int64_t k = 0; k < kernel_w; ++k) {
          const V wv = I::load(wr + k * kBlock);
#pragma GCC unroll 16
          for (int p = 0; p < kP; ++p) {
            acc[p] = I::fma(I::load(xr + p * step + k * kBlock), wv, acc[p]);
          }
        }
      }
    }
    finish<I, kP>(r, off, acc, y + off);
  }
}

// Output pixel ow with its taps clipped to the input width. All 16
// channels at once (16 / kLanes accumulators): each clipped tap's bounds
// and pointers are then worked out once per pixel, not once per vector
// (NEON's 4 parts ran the tap loops 4 times: 2.4M of MobileNetV2's 40M
// instructions at 112x112 under qemu-aarch64's counter). Each lane's FMA
// order is unchanged.
template <typename I>
__attribute__((noinline)) static void border_pixel(const Row& r, int64_t ow) {
  using V = typename I::V;
  constexpr int kParts = kBlock / I::kLanes;
  const int64_t iw0 = ow * r.stride_w - r.pad_w;
  const int64_t k0 = max64(0, -iw0), k1 = min64(r.kernel_w, r.in_w - iw0);
  V acc[kParts];
#pragma GCC unroll 4
  for (int h = 0; h < kParts; ++h) acc[h] = I::zero();
  for (int64_t i = 0; i < r.rows; ++i) {
    const float* xr = r.x + i * r.x_row + iw0 * kBlock;
    const float* wr = r.w + i * r.kernel_w * kBlock;
    for (int64_t k = k0; k < k1; ++k) {
#pragma GCC unroll 4
      for (int h = 0; h < kParts; ++h) {
        const int64_t at = k * kBlock + h * I::kLanes;
        acc[h] = I::fma(I::load(xr + at), I::load(wr + at), acc[h]);
      }
    }
  }
#pragma GCC unroll 4
  for (int h = 0; h < kParts; ++h) {
    V part[1] = {acc[h]};
    finish<I, 1>(r, h * I::kLanes, part, r.y + ow * kBlock + h * I::kLanes);
  }
}

// The tile of kP (or, counting down, fewer: `count`) pixels from ow.
template <typename I, int kKW, int kS, int kP>
static void tile_of(const Row& r, int64_t ow, int64_t count) {
  if constexpr (kP > 0) {
    if (count != kP) return tile_of<I, kKW, kS, kP - 1>(r, ow, count);
    const int64_t stride = kS > 0 ? kS : r.stride_w;
    tile<I, kP, kKW, kS>(r, r.x + (ow * stride - r.pad_w) * kBlock, r.y + ow * kBlock);
  }
}

// Interior pixels [begin, end) in near-equal tiles (54 pixels, 16 at
// most: 14 + 14 + 13 + 13, not 16 + 16 + 16 + 6): a narrow tile has too
// few accumulators to hide the FMA latency.
template <typename I, int kKW, int kS>
static void interior(const Row& r, int64_t begin, int64_t end) {
  const int64_t count = end - begin, tiles = (count + I::kMaxPixels - 1) / I::kMaxPixels;
  int64_t ow = begin;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t size = count / tiles + (i < count % tiles ? 1 : 0);
    tile_of<I, kKW, kS, I::kMaxPixels>(r, ow, size);
    ow += size;
  }
}

template <typename I>
static void row(const Row& r, int64_t out_w) {
  // Interior: ow * sw - pw >= 0 and ow * sw - pw + KW <= in_w.
  const int64_t sw = r.stride_w, span = r.in_w - r.kernel_w + r.pad_w;
  const int64_t lo = min64(out_w, (r.pad_w + sw - 1) / sw);
  const int64_t hi = max64(lo, span < 0 ? 0 : min64(out_w, span / sw + 1));
  for (int64_t ow = 0; ow < lo; ++ow) border_pixel<I>(r, ow);
  if (r.kernel_w == 3 && sw == 1) {
    interior<I, 3, 1>(r, lo, hi);
  } else if (r.kernel_w == 3 && sw == 2) {
    interior<I, 3, 2>(r, lo, hi);
  } else if (r.kernel_w == 5 && sw == 1) {
    interior<I, 5, 1>(r, lo, hi);
  } else if (r.kernel_w == 5 && sw == 2) {
    interior<I, 5, 2>(r, lo, hi);
  } else {
    interior<I, 0, 0>(r, lo, hi);
  }
  for (int64_t ow = hi; ow < out_w; ++ow) border_pixel<I>(r, ow);
}

template <typename I>
Error run(const DepthwiseBlockedShape& s, const float* x, const float* w, const float* bias,
          float* y, const Conv2dClamp& clamp) {
  const int64_t planes = s.batch * s.blocks;
  const int64_t in_plane = s.in_h * s.in_w * kBlock, out_row = s.out_w * kBlock;
  // Bands of output rows so that 2+ threads get ~8 units each (an odd
  // number of planes split in rows balances); 1 thread walks whole planes.
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t bands =
      threads == 1 ? 1 : min64(s.out_h, max64(1, (8 * threads + planes - 1) / planes));
  const int64_t band_rows = (s.out_h + bands - 1) / bands;
  parallel_for(0, planes * bands, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t plane = t / bands, band = t % bands, cb = plane % s.blocks;
      const float* image = x + plane * in_plane;
      Row r;
      r.x_row = s.in_w * kBlock;
      r.kernel_w = s.kernel_w;
      r.stride_w = s.stride_w;
      r.pad_w = s.pad_w;
      r.in_w = s.in_w;
      r.bias = bias == nullptr ? nullptr : bias + cb * kBlock;
      r.lo = clamp.min;
      r.hi = clamp.max;
      const int64_t oh_end = min64(s.out_h, (band + 1) * band_rows);
      for (int64_t oh = band * band_rows; oh < oh_end; ++oh) {
        const int64_t ih0 = oh * s.stride_h - s.pad_h;
        const int64_t i0 = max64(0, -ih0), i1 = min64(s.kernel_h, s.in_h - ih0);
        r.rows = max64(0, i1 - i0);
        // No rows inside (padding of a kernel's height or more): x and w unread.
        r.x = r.rows == 0 ? image : image + (ih0 + i0) * r.x_row;
        r.w = w + (cb * s.kernel_h + (r.rows == 0 ? 0 : i0)) * s.kernel_w * kBlock;
        r.y = y + (plane * s.out_h + oh) * out_row;
        row<I>(r, s.out_w);
      }
    }
  });
  return Error::Ok;
}

}  // namespace depthwise_blocked_driver
}  // namespace optimized
}  // namespace torchedge
