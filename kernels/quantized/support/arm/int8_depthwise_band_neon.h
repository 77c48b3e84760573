// torchedge/kernels/quantized/support/arm/int8_depthwise_band_neon.h
//
// The channel-block plumbing shared by the AArch64 int8 depthwise loops
// (int8_depthwise_channels_neon.cpp, int8_depthwise_channels_dotprod.cpp):
// a band of kBand = 16 channels of one image moves from its NCHW planes
// into a [row][column][16 channels] buffer and its outputs back, 16 pixels
// at a time through 16 x 16 byte transposes. Include from support/arm/*.cpp
// only (anonymous namespace).
#pragma once

#include <arm_neon.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/int8_depthwise.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kBand = kInt8DepthwiseNeonBand;  // 16 channels
constexpr int64_t kTile = 16;                       // pixels per transpose

inline size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

// The band buffer's padded sizes.
inline int64_t padded_w(const Int8DepthwiseProblem& p) { return p.width + 2 * p.pad_w; }
inline int64_t padded_h(const Int8DepthwiseProblem& p) { return p.height + 2 * p.pad_h; }

// 16 x 16 bytes transposed through memory with 4-way interleaving stores
// and loads (st4 / ld4: one instruction per 64 bytes; 16 x 16 in registers
// took 64 trn and, with GCC 12, as many spills). rows_to_pixels: row c
// (channel c: 16 pixels at row(c)) in, pixel j's 16 channels at
// out + 16 j: first [pixel][4 channels] per group of 4 channels (st4 of
// bytes), then per 4 pixels the 4 groups' words interleaved (st4 of words).
// Rows: row(c) gives channel c's 16 bytes.
template <typename Row>
__attribute__((always_inline)) inline void rows_to_pixels(Row row, int8_t* tmp, int8_t* out) {
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const int8x16x4_t v = {{vld1q_s8(row(4 * g)), vld1q_s8(row(4 * g + 1)),
                            vld1q_s8(row(4 * g + 2)), vld1q_s8(row(4 * g + 3))}};
    vst4q_s8(tmp + 64 * g, v);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const int32x4x4_t u = {{vld1q_s32(reinterpret_cast<const int32_t*>(tmp + 16 * k)),
                            vld1q_s32(reinterpret_cast<const int32_t*>(tmp + 64 + 16 * k)),
                            vld1q_s32(reinterpret_cast<const int32_t*>(tmp + 128 + 16 * k)),
                            vld1q_s32(reinterpret_cast<const int32_t*>(tmp + 192 + 16 * k))}};
    vst4q_s32(reinterpret_cast<int32_t*>(out + 64 * k), u);
  }
}

// The inverse: pixel j's 16 channels at in + 16 j; channel c's 16 pixels
// stored at planes + c * plane_stride for c < cn (ld4 of words per 4
// pixels, then ld4 of bytes per group of 4 channels).
__attribute__((always_inline)) inline void pixels_to_rows(const int8_t* in, int8_t* tmp,
                                                          int8_t* planes, int64_t plane_stride,
                                                          int64_t cn) {
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const int32x4x4_t u = vld4q_s32(reinterpret_cast<const int32_t*>(in + 64 * k));
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) vst1q_s32(reinterpret_cast<int32_t*>(tmp + 64 * g + 16 * k), u.val[g]);
  }
  if (cn == kBand) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      const int8x16x4_t v = vld4q_s8(tmp + 64 * g);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) vst1q_s8(planes + (4 * g + i) * plane_stride, v.val[i]);
    }
    return;
  }
  for (int g = 0; 4 * g < cn; ++g) {
    const int8x16x4_t v = vld4q_s8(tmp + 64 * g);
    for (int i = 0; i < 4 && 4 * g + i < cn; ++i) {
      vst1q_s8(planes + (4 * g + i) * plane_stride, v.val[i]);
    }
  }
}

// The band's input pixels, 16 flat pixels of the H x W planes at a time
// (plane rows are contiguous, so any width takes whole 16-byte loads; the
// last chunk overlaps the one before, rewriting the same values; a plane
// under 16 pixels is read through a zero-filled copy), transposed, and
// put(pixel bytes, at) called per pixel with its 16 channels' bytes and
// its index in the padded [H + 2 pad_h][W + 2 pad_w] band. planes[c] is
// channel c's input plane.
template <typename Put>
__attribute__((always_inline)) inline void for_each_band_pixel(const Int8DepthwiseProblem& p,
                                                               const int8_t* const (&planes)[kBand],
                                                               Put put) {
  // Locals: the callers' stores may alias p's fields for GCC.
  const int64_t width = p.width, hw = p.height * p.width, pad_h = p.pad_h, pad_w = p.pad_w;
  const int64_t padded_width = width + 2 * pad_w;
  int8_t small[kBand][kTile];
  alignas(16) int8_t tmp[kBand * kTile], pix[kBand * kTile];
  for (int64_t q0 = 0; q0 < hw; q0 += kTile) {
    const int64_t start = hw >= kTile ? std::min(q0, hw - kTile) : 0;
    const int8_t* rows[kBand];
    if (hw >= kTile) {
      for (int c = 0; c < kBand; ++c) rows[c] = planes[c] + start;
    } else {
      std::memset(small, 0, sizeof(small));
      for (int c = 0; c < kBand; ++c) {
        std::memcpy(small[c], planes[c], static_cast<size_t>(hw));
        rows[c] = small[c];
      }
    }
    rows_to_pixels([&](int c) { return rows[c]; }, tmp, pix);
    const int64_t count = std::min(kTile, hw - start);
    int64_t iw = start % width;
    int64_t at = (start / width + pad_h) * padded_width + iw + pad_w;
#pragma GCC unroll 16
    for (int64_t j = 0; j < kTile; ++j) {
      if (j == count) break;
      put(vld1q_s8(pix + j * kBand), at);
      ++at;
      if (++iw == width) {
        iw = 0;
        at += 2 * pad_w;
      }
    }
    if (start + kTile >= hw) break;
  }
}

// The band's output pixels, 16 at a time: compute(q0, count, rows) writes
// the 16 channel bytes of flat output pixels [q0, q0 + count) to
// rows + 16 j; they are transposed into the band's cn planes from `out`
// (plane stride OH * OW). A plane's last, partial tile (after a full one)
// is stored as the plane's last 16 pixels: the previous tile's last rows
// move down to fill it; a plane under 16 pixels goes through a buffer.
// tile: kTile * kBand bytes of scratch.
template <typename Compute>
__attribute__((always_inline)) inline void for_each_output_tile(const Int8DepthwiseProblem& p,
                                                                int64_t cn, int8_t* tile,
                                                                int8_t* out, Compute compute) {
  const int64_t ohw = p.out_height * p.out_width;
  alignas(16) int8_t transposed[kBand * kTile];
  for (int64_t q0 = 0; q0 < ohw; q0 += kTile) {
    const int64_t count = std::min(kTile, ohw - q0);
    int64_t row0 = 0, store_at = q0;
    if (count < kTile && q0 > 0) {
      row0 = kTile - count;
      store_at = ohw - kTile;
      std::memmove(tile, tile + count * kBand, static_cast<size_t>(row0 * kBand));
    }
    compute(q0, count, tile + row0 * kBand);
    if (ohw >= kTile) {
      pixels_to_rows(tile, transposed, out + store_at, ohw, cn);
    } else {
      alignas(16) int8_t rows[kBand * kTile];
      pixels_to_rows(tile, transposed, rows, kTile, cn);
      for (int64_t c = 0; c < cn; ++c) {
        std::memcpy(out + c * ohw, rows + c * kTile, static_cast<size_t>(count));
      }
    }
  }
}

// A band's whole output, pixel q's 16 channel bytes at pixels + 16 q
// (room for at least 16 pixels), into the band's cn planes from `out`
// (plane stride OH * OW), 16 pixels at a time; a plane's last, partial
// group is its last 16 pixels (overlapping the group before); a plane
// under 16 pixels goes through a buffer.
inline void store_band_outputs(const Int8DepthwiseProblem& p, int64_t cn, const int8_t* pixels,
                               int8_t* out) {
  const int64_t ohw = p.out_height * p.out_width;
  alignas(16) int8_t transposed[kBand * kTile];
  if (ohw < kTile) {
    alignas(16) int8_t rows[kBand * kTile];
    pixels_to_rows(pixels, transposed, rows, kTile, cn);
    for (int64_t c = 0; c < cn; ++c) {
      std::memcpy(out + c * ohw, rows + c * kTile, static_cast<size_t>(ohw));
    }
    return;
  }
  for (int64_t q0 = 0;; q0 += kTile) {
    const int64_t at = std::min(q0, ohw - kTile);
    pixels_to_rows(pixels + at * kBand, transposed, out + at, ohw, cn);
    if (at + kTile >= ohw) break;
  }
}

}  // namespace
}  // namespace quantized
}  // namespace torchedge
