// torchedge/kernels/optimized/conv/winograd_blocked_driver.h
//
// The loop nest of conv2d_winograd_blocked (winograd_blocked.h) as a
// template over one ISA's conv2d_blocked micro-kernel (the Tile of
// conv2d_blocked_driver.h), which computes the 16 GEMMs as 1x1
// convolutions whose "pixels" are tiles.
//
// The transforms are written on GCC vector types of 16 floats (one
// channel block of one pixel): one zmm op where AVX-512 is on, two ymm ops
// under AVX2. Include this header ONLY from one ISA's translation unit
// (winograd_blocked_<isa>.cpp), as conv2d_blocked_driver.h.
#pragma once

#include <atomic>
#include <cstring>
#include <limits>

#include "kernels/optimized/conv/conv2d_blocked_driver.h"
#include "kernels/optimized/conv/winograd_blocked.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace winograd_blocked_driver {

using conv2d_blocked_driver::BlockedTile;
using conv2d_blocked_driver::ceil_div;
using conv2d_blocked_driver::max64;
using conv2d_blocked_driver::min64;

typedef float Vec16 __attribute__((vector_size(64)));

// Vec16 never crosses a call boundary (everything taking or returning one is
// always_inline in one ISA's unit), so GCC's note that passing it without
// AVX-512 would change the ABI does not apply. Not popped: the templates
// are instantiated at the end of the including unit.
#pragma GCC diagnostic ignored "-Wpsabi"

#define TE_WINOGRAD_INLINE __attribute__((always_inline)) static inline

TE_WINOGRAD_INLINE Vec16 load16(const float* p) {
  Vec16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
TE_WINOGRAD_INLINE void store16(float* p, Vec16 v) { std::memcpy(p, &v, sizeof v); }
TE_WINOGRAD_INLINE Vec16 splat16(float f) { return Vec16{} + f; }

// V and one group's M per band: at most this many bytes, so both stay in
// L2 (1.25 MiB on the Ice Lake class host) between the input transform, the
// GEMMs and the output transform. Every band streams all of U once, so
// fewer bands matter most where U is large: 512 @ 7x7 (16.8 MB of U) ran
// 0.59x the direct convolution in two 512 KiB bands and 1.22x in one;
// 256 @ 14x14 was the same in one band or two (conv_bench "wb", 1 thread).
constexpr int64_t kBandBytes = 1024 * 1024;

struct Geometry {
  int64_t cin_blocks, cout_blocks, groups;
  int64_t tiles_w, tiles;    // 2x2 output tiles per row, per image
  int64_t bands, band_tiles;  // per image
  int64_t chunk;              // input channel blocks per GEMM pass (U's share in L1)
};

template <int kMaxPixels>
Geometry plan(const Conv2dShape& s, int64_t threads) {
  Geometry g;
  g.cin_blocks = s.in_channels / kConvBlock;
  g.cout_blocks = s.out_channels / kConvBlock;
  g.groups = ceil_div(s.out_channels, kConvBlockGroup);
  g.tiles_w = ceil_div(s.out_w, 2);
  g.tiles = ceil_div(s.out_h, 2) * g.tiles_w;
  const int64_t per_tile = kWinogradPoints * (s.in_channels + kConvBlockGroup) * 4;
  const int64_t most = max64(kMaxPixels, kBandBytes / per_tile);
  g.bands = ceil_div(g.tiles, most);
  // At 2+ threads, as many (image, band) units as whole shares of the
  // threads: ResNet's 3x3 64 @56 had 7 bands, 4 against 3 on 2 threads.
  // AMD Zen 3, 2 threads, conv_bench "wb" (warm), min of 5 alternating
  // runs: 64 @56 1400 -> 1207 us; 128 @28 (3 bands, each split by groups,
  // which transforms its input twice) -> 4 bands 1170 -> 1110.
  if (threads > 1 && s.batch * g.bands >= threads) {
    while ((s.batch * g.bands) % threads != 0 && g.bands < g.tiles) ++g.bands;
  }
  g.band_tiles = ceil_div(g.tiles, g.bands);
  g.chunk = max64(1, conv2d_blocked_driver::kChunkWeightFloats / (kConvBlock * kConvBlockGroup));
  return g;
}

// V [16][Cin / 16][count][16] = B^T d B of tiles [t0, t0 + count) of one
// image (zeros outside the input), with
//   B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]].
// False when some V is an infinity or NaN.
static bool transform_input(const Conv2dShape& s, const Geometry& g, const float* xn, int64_t t0,
                            int64_t count, float* v) {
  const int64_t plane = s.in_h * s.in_w * kConvBlock;
  const int64_t point = g.cin_blocks * count * kConvBlock;  // floats between points
  const Vec16 zero{};
  Vec16 check{};  // sum of (tile's V sum) * 0: NaN once any V is not finite
  for (int64_t c = 0; c < g.cin_blocks; ++c) {
    const float* xc = xn + c * plane;
    float* vc = v + c * count * kConvBlock;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t t = t0 + i;
      const int64_t h0 = 2 * (t / g.tiles_w) - s.pad_h, w0 = 2 * (t % g.tiles_w) - s.pad_w;
      Vec16 d[4][4];
      if (h0 >= 0 && w0 >= 0 && h0 + 4 <= s.in_h && w0 + 4 <= s.in_w) {
        const float* p = xc + (h0 * s.in_w + w0) * kConvBlock;
        for (int r = 0; r < 4; ++r) {
          for (int q = 0; q < 4; ++q) d[r][q] = load16(p + (r * s.in_w + q) * kConvBlock);
        }
      } else {
        for (int r = 0; r < 4; ++r) {
          for (int q = 0; q < 4; ++q) {
            const int64_t h = h0 + r, w = w0 + q;
            d[r][q] = h >= 0 && h < s.in_h && w >= 0 && w < s.in_w
                          ? load16(xc + (h * s.in_w + w) * kConvBlock)
                          : zero;
          }
        }
      }
      Vec16 rows[4][4];  // B^T d
      for (int q = 0; q < 4; ++q) {
        rows[0][q] = d[0][q] - d[2][q];
        rows[1][q] = d[1][q] + d[2][q];
        rows[2][q] = d[2][q] - d[1][q];
        rows[3][q] = d[1][q] - d[3][q];
      }
      Vec16 sum{};
      float* out = vc + i * kConvBlock;
      for (int r = 0; r < 4; ++r) {  // (B^T d) B, row r: points 4 r .. 4 r + 3
        const Vec16 v0 = rows[r][0] - rows[r][2], v1 = rows[r][1] + rows[r][2];
        const Vec16 v2 = rows[r][2] - rows[r][1], v3 = rows[r][1] - rows[r][3];
        store16(out + (4 * r + 0) * point, v0);
        store16(out + (4 * r + 1) * point, v1);
        store16(out + (4 * r + 2) * point, v2);
        store16(out + (4 * r + 3) * point, v3);
        sum += (v0 + v1) + (v2 + v3);
      }
      check += sum * zero;
    }
  }
  for (int l = 0; l < 16; ++l) {
    if (check[l] != 0.0f) return false;  // NaN compares unequal
  }
  return true;
}

// M [16][4][count][16] = U[xi] V[xi] for the output channels of `group`
// (blocks past Cout untouched), by conv2d_blocked's tile: a 1x1
// convolution over `count` tile-"pixels" per point.
template <typename Tile>
void gemms(const Geometry& g, const float* v, const float* u, int64_t count, int64_t group,
           float* m) {
  const int blocks = static_cast<int>(min64(4, g.cout_blocks - group * 4));
  const int64_t point_v = g.cin_blocks * count * kConvBlock;
  const int64_t point_m = 4 * count * kConvBlock;
  const int64_t pieces = ceil_div(count, Tile::kMaxPixels);
  BlockedTile a{};
  a.x_block_stride = count * kConvBlock;
  a.x_tap_stride = kConvBlock;
  a.kernel_h = a.kernel_w = 1;
  a.y_block_stride = count * kConvBlock;
  a.lo = -std::numeric_limits<float>::infinity();
  a.hi = std::numeric_limits<float>::infinity();
  a.finish = false;  // plain sums; the output transform applies the epilogue
  for (int64_t xi = 0; xi < kWinogradPoints; ++xi) {
    for (int64_t c0 = 0; c0 < g.cin_blocks; c0 += g.chunk) {
      a.w = u + ((xi * g.groups + group) * g.cin_blocks + c0) * kConvBlock * kConvBlockGroup;
      a.cin_blocks = min64(g.chunk, g.cin_blocks - c0);
      a.accumulate = c0 > 0;
      int64_t q = 0;
      for (int64_t i = 0; i < pieces; ++i) {  // near-equal pieces, as conv2d_blocked's
        const int64_t size = count / pieces + (i < count % pieces ? 1 : 0);
        a.x = v + xi * point_v + c0 * count * kConvBlock + q * kConvBlock;
        a.y = m + xi * point_m + q * kConvBlock;
        Tile::compute(static_cast<int>(size), blocks, 1, a);
        q += size;
      }
    }
  }
}

// y = A^T M A (+ bias, + residual, clamp) for `group`'s blocks, tiles
// [t0, t0 + count) of one image, A^T = [[1, 1, 1, 0], [0, 1, -1, -1]];
// outputs past OH / OW (odd sizes) are not stored.
static void transform_output(const Conv2dShape& s, const Geometry& g, const float* m,
                             int64_t t0, int64_t count, int64_t group, const float* bias,
                             const float* residual, float* y, const Conv2dClamp& clamp) {
  const int64_t blocks = min64(4, g.cout_blocks - group * 4);
  const int64_t point = 4 * count * kConvBlock;
  const int64_t map = s.out_h * s.out_w * kConvBlock;
  const Vec16 lo = splat16(clamp.min), hi = splat16(clamp.max);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t cb = group * 4 + b;
    const Vec16 bv = bias == nullptr ? Vec16{} : load16(bias + cb * kConvBlock);
    float* yb = y + cb * map;
    const float* rb = residual == nullptr ? nullptr : residual + cb * map;
    for (int64_t i = 0; i < count; ++i) {
      const float* mp = m + (b * count + i) * kConvBlock;
      Vec16 s0[4], s1[4];  // A^T M
      for (int q = 0; q < 4; ++q) {
        const Vec16 m0 = load16(mp + q * point), m1 = load16(mp + (4 + q) * point);
        const Vec16 m2 = load16(mp + (8 + q) * point), m3 = load16(mp + (12 + q) * point);
        s0[q] = (m0 + m1) + m2;
        s1[q] = (m1 - m2) - m3;
      }
      const Vec16 out[2][2] = {{(s0[0] + s0[1]) + s0[2], (s0[1] - s0[2]) - s0[3]},
                               {(s1[0] + s1[1]) + s1[2], (s1[1] - s1[2]) - s1[3]}};
      const int64_t t = t0 + i, oh0 = 2 * (t / g.tiles_w), ow0 = 2 * (t % g.tiles_w);
      for (int r = 0; r < 2 && oh0 + r < s.out_h; ++r) {
        for (int q = 0; q < 2 && ow0 + q < s.out_w; ++q) {
          const int64_t at = ((oh0 + r) * s.out_w + ow0 + q) * kConvBlock;
          Vec16 val = out[r][q];
          if (bias != nullptr) val += bv;
          if (rb != nullptr) val += load16(rb + at);
          val = val < lo ? lo : val;  // NaN stays NaN: both compares are false
          val = val > hi ? hi : val;
          store16(yb + at, val);
        }
      }
    }
  }
}

template <typename Tile>
Error run(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* u,
          const float* bias, const float* residual, float* y, const Conv2dClamp& clamp) {
  const int64_t threads = static_cast<int64_t>(num_threads());
  const Geometry g = plan<Tile::kMaxPixels>(s, threads);
  // (image, band) units; with fewer than two per thread, the threads also
  // split each band's groups (each transforms the band's input itself).
  const int64_t units = s.batch * g.bands;
  const int64_t parts = units >= 2 * threads ? 1 : min64(g.groups, threads);
  const int64_t tasks = units * parts;
  const int64_t slots = min64(threads, tasks);
  const int64_t v_floats = kWinogradPoints * g.cin_blocks * g.band_tiles * kConvBlock;
  const int64_t m_floats = kWinogradPoints * 4 * g.band_tiles * kConvBlock;
  const size_t slot_bytes = sizeof(float) * static_cast<size_t>(v_floats + m_floats);
  float* scratch = static_cast<float*>(ctx.allocate_temp(slot_bytes * slots, 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "conv2d_winograd_blocked: no room for %lld bands' %zu-byte transforms",
                     static_cast<long long>(slots), slot_bytes);
  const int64_t in_image = g.cin_blocks * s.in_h * s.in_w * kConvBlock;
  const int64_t out_image = g.cout_blocks * s.out_h * s.out_w * kConvBlock;
  std::atomic<bool> not_finite{false};
  parallel_for_slots(0, tasks, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
    float* v = scratch + slot * (v_floats + m_floats);
    float* m = v + v_floats;
    for (int64_t task = begin; task < end && !not_finite.load(std::memory_order_relaxed);
         ++task) {
      const int64_t unit = task / parts, part = task % parts;
      const int64_t n = unit / g.bands, band = unit % g.bands;
      const int64_t t0 = band * g.band_tiles, count = min64(g.band_tiles, g.tiles - t0);
      if (count <= 0) continue;
      if (!transform_input(s, g, x + n * in_image, t0, count, v)) {
        not_finite.store(true, std::memory_order_relaxed);
        break;
      }
      const int64_t g0 = part * g.groups / parts, g1 = (part + 1) * g.groups / parts;
      const float* rn = residual == nullptr ? nullptr : residual + n * out_image;
      for (int64_t group = g0; group < g1; ++group) {
        gemms<Tile>(g, v, u, count, group, m);
        transform_output(s, g, m, t0, count, group, bias, rn, y + n * out_image, clamp);
      }
    }
  });
  return not_finite.load() ? Error::NotSupported : Error::Ok;
}

#undef TE_WINOGRAD_INLINE

}  // namespace winograd_blocked_driver
}  // namespace optimized
}  // namespace torchedge
