// AVX2 path of the int8 GEMM with a float epilogue (contract:
// support/int8_gemm_f32.h). Per 16-column strip of w:
//  1. pack: sign-extend to int16 and interleave K pairs, so one 32-byte
//     load holds (w[n, k], w[n, k+1]) for 8 columns; an 8x8 int32 transpose
//     does 16 k of 8 columns at a time (scalar code only for the K tail and
//     a partial last strip, which it pads with zeros). A weight stored in
//     the strip layout (w_packed) already has this order and padding: the
//     step is a sign-extending copy;
//  2. multiply: a 6x16 int32 register tile (int8_tile_avx2.h, shared with
//     the int8 convolution; 12 accumulators, 2 weight
//     vectors, 1 broadcast, 1 product: all 16 ymm), vpmaddwd of the broadcast
//     activation pair against both weight vectors per K pair; the 6 rows'
//     pairs come from one stream (the activations' row-panel layout); a
//     last panel of 4-5 rows computes its padding rows and never stores
//     them, one of 1-3 rows takes a half-height tile instead. K runs in
//     blocks of kBlockPairs so a block of the strip (12 KiB) stays in L1
//     while all of M passes over it; partial sums wait in an int32 tile
//     [M, 16] between blocks;
//  3. epilogue: float(acc) * (x_scale * w_scales[n]) (+ bias[n]) for the
//     strip, as the scalar path computes it (mul, then add: no FMA).
// Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/x86/int8_tile_avx2.h"

namespace torchedge {
namespace quantized {
namespace {

using int8_tile::load256;
using int8_tile::store256;
using int8_tile::tile;
using int8_tile::tile_tail;

constexpr int64_t kStrip = kInt8GemmStrip;
constexpr int64_t kTileRows = kInt8GemmPanelRows;
constexpr int64_t kBlockPairs = 192;  // 384 k: 12 KiB of packed strip

// In-register transpose of 8 rows of 8 int32 (row i, lane l -> row l, lane i).
inline void transpose8x8(__m256i r[8]) {
  __m256i t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
  }
}

// packed[pair][col][2]: (w[n0 + col, 2 pair], w[n0 + col, 2 pair + 1]),
// zero outside w.
void pack_strip(const Int8GemmF32Problem& p, int64_t n0, int16_t* packed) {
  const int64_t pairs = int8_gemm_x_stride(p.k) / 2;
  if (p.w_packed) {
    const int8_t* src = p.w + int8_gemm_w_packed_index(n0, 0, p.k);
    for (int64_t i = 0; i < pairs * 32; i += 16) {
      store256(packed + i,
               _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    return;
  }
  const int64_t cols = std::min(kStrip, p.n - n0);
  int64_t k0 = 0;
  if (cols == kStrip) {
    for (; k0 + 16 <= p.k; k0 += 16) {
      for (int half = 0; half < 2; ++half) {
        __m256i r[8];
        for (int j = 0; j < 8; ++j) {
          const int8_t* src = p.w + (n0 + half * 8 + j) * p.k + k0;
          r[j] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
        }
        transpose8x8(r);  // r[q]: pair k0/2 + q of columns half*8 .. half*8 + 7
        for (int q = 0; q < 8; ++q) store256(packed + (k0 / 2 + q) * 32 + half * 16, r[q]);
      }
    }
  }
  for (int64_t pair = k0 / 2; pair < pairs; ++pair) {
    int16_t* dst = packed + pair * 32;
    for (int64_t j = 0; j < kStrip; ++j) {
      for (int64_t e = 0; e < 2; ++e) {
        const int64_t k = 2 * pair + e;
        dst[2 * j + e] = (j < cols && k < p.k) ? p.w[(n0 + j) * p.k + k] : 0;
      }
    }
  }
}

void epilogue(const Int8GemmF32Problem& p, int64_t n0, const int32_t* c) {
  const int64_t cols = std::min(kStrip, p.n - n0);
  alignas(32) float scale[kStrip] = {}, bias[kStrip] = {};
  for (int64_t j = 0; j < cols; ++j) {
    scale[j] = p.x_scale * p.w_scales[n0 + j];
    if (p.bias != nullptr) bias[j] = p.bias[n0 + j];
  }
  const __m256 s0 = _mm256_load_ps(scale), s1 = _mm256_load_ps(scale + 8);
  const __m256 b0 = _mm256_load_ps(bias), b1 = _mm256_load_ps(bias + 8);
  alignas(32) float row[kStrip];
  for (int64_t m = 0; m < p.m; ++m) {
    __m256 y0 = _mm256_mul_ps(_mm256_cvtepi32_ps(load256(c + m * 16)), s0);
    __m256 y1 = _mm256_mul_ps(_mm256_cvtepi32_ps(load256(c + m * 16 + 8)), s1);
    if (p.bias != nullptr) {  // no add without bias: -0.0 stays -0.0 as in the scalar path
      y0 = _mm256_add_ps(y0, b0);
      y1 = _mm256_add_ps(y1, b1);
    }
    float* dst = p.out + m * p.n + n0;
    if (cols == kStrip) {
      _mm256_storeu_ps(dst, y0);
      _mm256_storeu_ps(dst + 8, y1);
    } else {
      _mm256_store_ps(row, y0);
      _mm256_store_ps(row + 8, y1);
      std::memcpy(dst, row, static_cast<size_t>(cols) * sizeof(float));
    }
  }
}

}  // namespace

size_t int8_gemm_f32_avx2_worker_bytes(int64_t m, int64_t k) {
  const size_t packed = static_cast<size_t>(int8_gemm_x_stride(k)) * kStrip * sizeof(int16_t);
  const int64_t rows = (m + kTileRows - 1) / kTileRows * kTileRows;  // the last tile's padding
  return ((packed + 63) & ~size_t{63}) + static_cast<size_t>(rows) * kStrip * sizeof(int32_t);
}

void int8_gemm_f32_avx2(const Int8GemmF32Problem& p, int64_t strip_begin, int64_t strip_end,
                        void* worker_scratch) {
  const int64_t kp = int8_gemm_x_stride(p.k), pairs = kp / 2;
  int16_t* packed = static_cast<int16_t*>(worker_scratch);
  const size_t packed_bytes = static_cast<size_t>(kp) * kStrip * sizeof(int16_t);
  int32_t* c = reinterpret_cast<int32_t*>(static_cast<char*>(worker_scratch) +
                                          ((packed_bytes + 63) & ~size_t{63}));
  // A weight in the strip layout is read as one contiguous stream per strip:
  // while a strip is multiplied, the next one is prefetched a few lines per
  // tile, so its pack reads cache instead of waiting on memory (the weights
  // of a transformer's layers do not stay in cache between calls).
  const int64_t strip_bytes = kp * kStrip;
  const int64_t panels = (p.m + kTileRows - 1) / kTileRows;
  const int64_t lines_per_tile = (strip_bytes / 64 + panels - 1) / panels;
  for (int64_t s = strip_begin; s < strip_end; ++s) {
    const int64_t n0 = s * kStrip;
    pack_strip(p, n0, packed);
    const char* next = (p.w_packed && s + 1 < strip_end)
                           ? reinterpret_cast<const char*>(p.w) + (s + 1) * strip_bytes
                           : nullptr;
    int64_t prefetched = 0;
    for (int64_t q0 = 0; q0 < pairs; q0 += kBlockPairs) {
      const int64_t block = std::min(kBlockPairs, pairs - q0);
      for (int64_t m0 = 0; m0 < p.m; m0 += kTileRows) {
        for (int64_t l = 0; next != nullptr && l < lines_per_tile && prefetched < strip_bytes;
             ++l, prefetched += 64) {
          _mm_prefetch(next + prefetched, _MM_HINT_T0);
        }
        const int32_t* panel = reinterpret_cast<const int32_t*>(p.x + m0 * kp) + q0 * kTileRows;
        if (p.m - m0 <= 3) {
          tile_tail(panel, packed + q0 * 32, block, p.m - m0, c + m0 * kStrip, q0 > 0);
        } else {
          tile(panel, packed + q0 * 32, block, c + m0 * kStrip, q0 > 0);
        }
      }
    }
    epilogue(p, n0, c);
  }
}

}  // namespace quantized
}  // namespace torchedge
