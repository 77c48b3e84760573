// AVX2 path of the int8 convolution for 7-bit weights (contract:
// support/int8_conv.h; taken when p.weight_bits == 7 on AVX2 without VNNI).
//
// Why: without VNNI the exact AVX2 path (int8_conv_avx2.cpp) widens both
// operands to int16 and multiplies in pairs (vpmaddwd + vpaddd: 16
// multiply-adds per two ymm instructions, 1.57-1.65x the float FMA rate on
// Zen 3, build/int8_mac_peak), so its packed strips and widened weights
// move two bytes per operand. vpmaddubsw multiplies u8 by s8 and adds
// adjacent pairs into saturating int16, then vpmaddwd by ones sums those
// pairs into int32: 32 multiply-adds per three ymm instructions (1.82-1.97x
// the FMA rate) on one byte per operand. It is exact only while no pair sum
// leaves int16: |u1 w1 + u2 w2| <= 2 * 255 * 64 = 32640 <= 32767 holds when
// every weight is in [-64, 63] (7 bits; ONNX Runtime's reduce_range makes
// the same trade). The caller guarantees that range (weight_bits == 7, set
// at export from the weights themselves); the sums are then the exact int32
// of the other paths, so the output is bit for bit theirs.
//
// The rest is the VNNI path's arithmetic on ymm: activations packed as u8
// quads (x + 128, int8_conv_quads_x86.h), the panels read in place, each
// row's accumulators starting at -(zx + 128) * sum_k w (row sums once per
// call, int8_conv_u8_row_sums; none for zx == -128), K in blocks of 192
// quads (12 KiB of packed strip), int32 sums in [strip][Cout_g rounded to
// 6][16], then the AVX2 epilogue (int8_conv_requantize_run_for's, chosen once
// per call by the caller).
// Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/quantized/support/int8_conv.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kStrip = kInt8ConvStrip;
constexpr int64_t kRows = kInt8ConvPanelRows;
constexpr int64_t kHalf = kStrip / 2;      // pixels per ymm of int32 sums

#include "kernels/quantized/support/x86/int8_conv_strips_x86.h"
#include "kernels/quantized/support/x86/int8_conv_quads_x86.h"

inline __m256i broadcast4(const int8_t* a) {
  int32_t v;
  std::memcpy(&v, a, sizeof(v));
  return _mm256_set1_epi32(v);
}

// c rows [0, kR) ([row][16] int32, pixels [0, 8 kHalves)) = init[row] (the
// first K block) or c (later blocks) + the block's sums: panel quads `a`
// (their rows 0 .. kR - 1; a row's 4 weights broadcast) against the strip's
// packed quads `b` ([quad][16 px][4 k] u8). kR = 3 rows x 16 pixels keeps
// 6 accumulators, 2 pixel vectors, the weights, a product and the ones in
// 11 of the 16 ymm registers (6 rows x 16 would need 17).
template <int kR, int kHalves>
void tile(const int8_t* a, const uint8_t* b, int64_t quads, const int32_t* init, int32_t* c) {
  __m256i acc[kR][kHalves];
  for (int r = 0; r < kR; ++r) {
    for (int h = 0; h < kHalves; ++h) {
      const __m256i* at = reinterpret_cast<const __m256i*>(c + r * kStrip + h * kHalf);
      acc[r][h] = init != nullptr ? _mm256_set1_epi32(init[r]) : _mm256_loadu_si256(at);
    }
  }
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t q = 0; q < quads; ++q, a += kQuadBytes, b += 64) {
    __m256i x[kHalves];
    for (int h = 0; h < kHalves; ++h) {
      x[h] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + h * 32));
    }
    for (int r = 0; r < kR; ++r) {
      const __m256i w = broadcast4(a + 4 * r);
      for (int h = 0; h < kHalves; ++h) {
        acc[r][h] = _mm256_add_epi32(acc[r][h],
                                     _mm256_madd_epi16(_mm256_maddubs_epi16(x[h], w), ones));
      }
    }
  }
  for (int r = 0; r < kR; ++r) {
    for (int h = 0; h < kHalves; ++h) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * kStrip + h * kHalf), acc[r][h]);
    }
  }
}

}  // namespace

void int8_conv_u8_row_sums(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                           int32_t* sums) {
  // Per quad, rows 0-3 from a 16-byte load and rows 4-5 from an 8-byte one;
  // vpmaddubsw by u8 ones then vpmaddwd by ones sums each row's 4 weights.
  const __m128i ones8 = _mm_set1_epi8(1), ones16 = _mm_set1_epi16(1);
  const int64_t quads = p.k_quads();
  for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
    const int8_t* panel = p.weight + pn * p.panel_bytes();
    __m128i rows03 = _mm_setzero_si128(), rows45 = _mm_setzero_si128();
    for (int64_t q = 0; q < quads; ++q, panel += kQuadBytes) {
      const __m128i w03 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(panel));
      const __m128i w45 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(panel + 16));
      rows03 = _mm_add_epi32(rows03, _mm_madd_epi16(_mm_maddubs_epi16(ones8, w03), ones16));
      rows45 = _mm_add_epi32(rows45, _mm_madd_epi16(_mm_maddubs_epi16(ones8, w45), ones16));
    }
    alignas(16) int32_t lanes[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), rows03);
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes + 4), rows45);
    for (int64_t r = 0; r < kRows; ++r) sums[pn * kRows + r] = lanes[r];
  }
}

size_t int8_conv_u8_avx2_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips) {
  return worker_bytes_of(p, chunk_strips);
}

void int8_conv_u8_avx2(const Int8ConvProblem& p, const Int8ConvSource& src,
                       const int32_t* row_sums, int64_t n, int64_t g, int64_t strip_begin,
                       int64_t strip_end, int64_t panel_begin, int64_t panel_end,
                       Int8RequantizeRun requantize, void* worker_scratch) {
  const int64_t quads = p.k_quads(), chunk = strip_end - strip_begin;
  QuadChunk qc(p, src, row_sums, g, strip_begin, strip_end, worker_scratch);
  const int64_t b_stride = qc.b_stride, c_stride = qc.c_stride;
  uint8_t* b = qc.b;
  int32_t* c = qc.c;
  // A last strip of <= 8 pixels (7x7 maps: 49 = 3 x 16 + 1) on one ymm.
  const bool half_last = p.pixels() - (strip_end - 1) * kStrip <= kHalf;
  for (int64_t q0 = 0; q0 < quads; q0 += qc.l.block) {
    const int64_t block = std::min(qc.l.block, quads - q0);
    qc.pack(p, src, q0, block);
    for (int64_t pn = panel_begin; pn < panel_end; ++pn) {
      const int8_t* a = qc.group_quads + (pn * quads + q0) * kQuadBytes;
      int32_t init[kRows];
      qc.panel_init(pn, init);
      const bool first = q0 == 0;
      // Rows 3-5 hold only padding when the panel has 3 rows or fewer.
      const bool upper = p.cout_g() - pn * kRows > 3;
      for (int64_t s = 0; s < chunk; ++s) {
        const uint8_t* bs = b + s * b_stride;
        int32_t* cs = c + s * c_stride + pn * kRows * kStrip;
        if (half_last && s == chunk - 1) {
          tile<3, 1>(a, bs, block, first ? init : nullptr, cs);
          if (upper) tile<3, 1>(a + 12, bs, block, first ? init + 3 : nullptr, cs + 3 * kStrip);
        } else {
          tile<3, 2>(a, bs, block, first ? init : nullptr, cs);
          if (upper) tile<3, 2>(a + 12, bs, block, first ? init + 3 : nullptr, cs + 3 * kStrip);
        }
      }
    }
  }
  const int64_t row_begin = panel_begin * kRows;
  const int64_t row_end = std::min(p.cout_g(), panel_end * kRows);
  for (int64_t s = strip_begin; s < strip_end; ++s) {
    const int64_t p0 = s * kStrip;
    requantize(p, c + (s - strip_begin) * c_stride + row_begin * kStrip,
               g * p.cout_g() + row_begin, row_end - row_begin, n, p0,
               std::min(kStrip, p.pixels() - p0));
  }
}

}  // namespace quantized
}  // namespace torchedge
