// Implicit-im2col B packer, AVX2 build (-mavx2 -mfma): see conv/im2col.h.
//
// Why this shape: the packer runs once per KC x NC panel and used to cost
// ~4 cycles per packed float (a call, bounds tests and scalar copies per
// tap and output-row run): 11 % of ResNet-50. Here each strip is cut into
// 8-pixel chunks whose per-tap validity is worked out once per strip as
// bit masks (one per kernel row, one per kernel column); a strip valid
// everywhere skips them (a tight load-store loop), others pay an AND of two
// bytes and one vector load, two loads and a deinterleave, masked loads or
// one masked gather per chunk and tap. Packing ResNet-50's convolutions
// (the whole K x N once, 1 thread): scalar packer 14.5-17.0 ms, per-chunk
// paths only 7.1-9.2 ms, with the whole-strip loops 5.5-6.7 ms. A gather
// costs ~5x a load in isolation here (Zen 3), yet neither masked loads for
// stride 2 (two plus a deinterleave) nor plain loads + a lane mask for the
// border chunks measured faster than the gathers they replace.
#include <immintrin.h>

#include <cstdint>

#include "kernels/optimized/conv/im2col.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int kMaxSide = 16;   // kernel_h, kernel_w handled here
constexpr int kMaxChunks = 8;  // nr <= 64

// Eight output pixels of one strip, with their validity per kernel row and
// per kernel column (bit t = lane t; lanes past the strip's last column are
// invalid everywhere, so they pack zeros), cut into at most two segments of
// lanes that share an output row: lane t of segment g reads input offset
// seg_base[g] + tap + t * stride_w.
struct Chunk {
  __m256i base;  // ih0 * W + iw0 per lane: the input offset of tap (0, 0)
  int64_t seg_base[2];
  unsigned char seg_bits[2];
  int segments;   // 1 or 2; 3 or more (rows under 8 wide): gather
  bool same_row;  // all lanes valid and in one output row
  unsigned char row_bits[kMaxSide];
  unsigned char col_bits[kMaxSide];
};

// All-ones in lane t where bit t of `bits` is set.
static inline __m256i lane_mask(unsigned bits) {
  const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i b = _mm256_set1_epi32(static_cast<int>(bits));
  return _mm256_cmpeq_epi32(_mm256_and_si256(b, sel), sel);
}

// [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 b0 b2 b4 b6]
static inline __m256 even_floats(__m256 a, __m256 b) {
  const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
}

static void setup_chunk(const Conv2dShape& s, int64_t p, int64_t valid, Chunk* c) {
  alignas(32) int32_t base[8];
  for (int kh = 0; kh < s.kernel_h; ++kh) c->row_bits[kh] = 0;
  for (int kw = 0; kw < s.kernel_w; ++kw) c->col_bits[kw] = 0;
  int64_t oh = p / s.out_w, ow = p % s.out_w;
  c->same_row = valid == 8 && ow + 7 < s.out_w;
  c->segments = 0;
  c->seg_bits[0] = c->seg_bits[1] = 0;
  int64_t seg_oh = -1;
  for (int t = 0; t < 8; ++t) {
    const int64_t ih0 = oh * s.stride_h - s.pad_h, iw0 = ow * s.stride_w - s.pad_w;
    base[t] = static_cast<int32_t>(ih0 * s.in_w + iw0);
    if (t < valid) {
      if (oh != seg_oh) {
        seg_oh = oh;
        if (c->segments < 2) c->seg_base[c->segments] = base[t] - t * s.stride_w;
        ++c->segments;
      }
      if (c->segments <= 2) c->seg_bits[c->segments - 1] |= static_cast<unsigned char>(1u << t);
      for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int64_t ih = ih0 + kh * s.dilation_h;
        if (ih >= 0 && ih < s.in_h) c->row_bits[kh] |= static_cast<unsigned char>(1u << t);
      }
      for (int kw = 0; kw < s.kernel_w; ++kw) {
        const int64_t iw = iw0 + kw * s.dilation_w;
        if (iw >= 0 && iw < s.in_w) c->col_bits[kw] |= static_cast<unsigned char>(1u << t);
      }
    }
    if (++ow == s.out_w) ow = 0, ++oh;
  }
  c->base = _mm256_load_si256(reinterpret_cast<const __m256i*>(base));
}

}  // namespace

namespace detail {

void pack_im2col_avx2(const void* context, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,
                      float* dst) {
  const Im2colSource& src = *static_cast<const Im2colSource*>(context);
  const Conv2dShape& s = *src.s;
  const int64_t plane_size = s.in_h * s.in_w;
  if (nr % 8 != 0 || nr > 8 * kMaxChunks || s.kernel_h > kMaxSide || s.kernel_w > kMaxSide ||
      plane_size >= (int64_t{1} << 30)) {
    pack_im2col_scalar(context, k0, kc, n0, nc, nr, dst);
    return;
  }
  const int taps = static_cast<int>(s.kernel_h * s.kernel_w);
  // Input offset of each tap r = kh * KW + kw from its window's corner.
  int32_t tap_off[kMaxSide * kMaxSide];
  unsigned char tap_kh[kMaxSide * kMaxSide], tap_kw[kMaxSide * kMaxSide];
  int64_t max_tap = 0;
  for (int r = 0; r < taps; ++r) {
    tap_kh[r] = static_cast<unsigned char>(r / s.kernel_w);
    tap_kw[r] = static_cast<unsigned char>(r % s.kernel_w);
    tap_off[r] = static_cast<int32_t>(tap_kh[r] * s.dilation_h * s.in_w + tap_kw[r] * s.dilation_w);
    if (tap_off[r] > max_tap) max_tap = tap_off[r];
  }
  const int chunks = nr / 8;
  const __m256 zero = _mm256_setzero_ps();
  Chunk ch[kMaxChunks];
  for (int64_t strip = 0; strip < nc; strip += nr) {
    const int64_t cols = nc - strip < nr ? nc - strip : nr;
    bool interior = true;  // every lane of every chunk in bounds for every tap
    for (int c = 0; c < chunks; ++c) {
      const int64_t left = cols - 8 * c;
      Chunk& q = ch[c];
      setup_chunk(s, n0 + strip + 8 * c, left < 0 ? 0 : (left > 8 ? 8 : left), &q);
      interior = interior && q.same_row;
      for (int kh = 0; kh < s.kernel_h; ++kh) interior = interior && q.row_bits[kh] == 0xFFu;
      for (int kw = 0; kw < s.kernel_w; ++kw) interior = interior && q.col_bits[kw] == 0xFFu;
    }
    float* o = dst + strip * kc;
    int64_t ci = k0 / taps;
    int r = static_cast<int>(k0 % taps);
    // Stride 2 reads 16 floats per chunk, one past its last lane: that one
    // must stay in the plane too (largest chunk base + largest tap offset).
    int64_t max_base = 0;
    for (int c = 0; c < chunks; ++c) {
      if (ch[c].seg_base[0] > max_base) max_base = ch[c].seg_base[0];
    }
    const bool fast =
        interior && (s.stride_w == 1 || (s.stride_w == 2 && max_base + max_tap + 16 <= plane_size));
    if (fast && s.stride_w == 1) {
      for (int64_t k = 0; k < kc; ++k, o += nr) {
        const float* from = src.x + ci * plane_size + tap_off[r];
        for (int c = 0; c < chunks; ++c) {
          _mm256_storeu_ps(o + 8 * c, _mm256_loadu_ps(from + ch[c].seg_base[0]));
        }
        if (++r == taps) r = 0, ++ci;
      }
      continue;
    }
    if (fast) {
      for (int64_t k = 0; k < kc; ++k, o += nr) {
        const float* from = src.x + ci * plane_size + tap_off[r];
        for (int c = 0; c < chunks; ++c) {
          const float* p = from + ch[c].seg_base[0];
          _mm256_storeu_ps(o + 8 * c, even_floats(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)));
        }
        if (++r == taps) r = 0, ++ci;
      }
      continue;
    }
    for (int64_t k = 0; k < kc; ++k, o += nr) {
      const float* plane = src.x + ci * plane_size;
      const int64_t tap = tap_off[r];
      const int kh = tap_kh[r], kw = tap_kw[r];
      for (int c = 0; c < chunks; ++c) {
        const Chunk& q = ch[c];
        float* oc = o + 8 * c;
        const unsigned m = q.row_bits[kh] & q.col_bits[kw];
        if (m == 0) {
          _mm256_storeu_ps(oc, zero);
          continue;
        }
        if (m == 0xFFu && q.same_row) {
          const int64_t off = q.seg_base[0] + tap;
          if (s.stride_w == 1) {
            _mm256_storeu_ps(oc, _mm256_loadu_ps(plane + off));
            continue;
          }
          if (s.stride_w == 2 && off + 16 <= plane_size) {
            _mm256_storeu_ps(oc, even_floats(_mm256_loadu_ps(plane + off),
                                             _mm256_loadu_ps(plane + off + 8)));
            continue;
          }
        }
        // Stride 1 padding borders and row straddles: one masked load per
        // segment (a masked-off lane reads nothing and yields 0). Measured
        // no better than the gather for stride 2, which keeps the gather.
        if (s.stride_w == 1 && q.segments <= 2) {
          __m256 v = zero;
          for (int g = 0; g < q.segments; ++g) {
            const unsigned mg = m & q.seg_bits[g];
            if (mg == 0) continue;
            const float* from = masked_base(plane, q.seg_base[g] + tap);
            v = _mm256_or_ps(v, _mm256_maskload_ps(from, lane_mask(mg)));
          }
          _mm256_storeu_ps(oc, v);
          continue;
        }
        // Masked lanes are not read, so out-of-range offsets there are harmless.
        const __m256i idx = _mm256_add_epi32(q.base, _mm256_set1_epi32(static_cast<int32_t>(tap)));
        const __m256 mask = _mm256_castsi256_ps(lane_mask(m));
        _mm256_storeu_ps(oc, _mm256_mask_i32gather_ps(zero, plane, idx, mask, 4));
      }
      if (++r == taps) r = 0, ++ci;
    }
  }
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
