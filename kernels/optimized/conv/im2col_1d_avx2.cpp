// Implicit-im2col B packer for 1-d convolutions, AVX2 build (-mavx2 -mfma):
// see conv/im2col.h.
//
// Why row by row: pack_im2col_avx2 fills one 16-column strip at a time, so
// for a KC block it reads 32 floats (stride 2) from each of ~85 input rows
// before moving on: as many concurrent streams as rows, and its loads
// waited on L3 / memory; its kernels are at most 16 wide, so wav2vec2's
// k128 positional conv took the scalar packer. A 1-d convolution's packed
// row k = (ci, tap) is one input row read at stride `stride` from offset
// n0 * stride - pad + tap * dilation, so here each packed row is written
// across every strip of the panel while its input row streams in order:
// stride 1 as plain or masked loads, stride 2 as two loads and a
// deinterleave, other strides (wav2vec2's k10 s5 stem, K = 10 rows) element
// by element. The packed values are the same floats as the other packers'
// (the GEMM's bits do not change). wav2vec2 (perf, 1 thread, Xeon with
// AVX-512): packing 5.7 % (AVX2 packer) + 2.4 % (scalar packer, the k128
// layer) -> 5.9-6.3 %. Blocks of 1, 2, 4 or 8 strips per pass over the
// rows measured 18, 11, 8 and 6-7 %: the scattered stores into the strips
// cost less than the row streams. (A first version divided j by nr per
// chunk: 8 %.)
#include <immintrin.h>

#include <cstdint>

#include "kernels/optimized/conv/im2col.h"

namespace torchedge {
namespace optimized {
namespace {

// [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 b0 b2 b4 b6]
static inline __m256 even_floats(__m256 a, __m256 b) {
  const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
}

// All-ones in lanes [lo, hi) of 8.
static inline __m256i lane_range(int64_t lo, int64_t hi) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i ge_lo = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(static_cast<int>(lo) - 1));
  const __m256i lt_hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hi)), lane);
  return _mm256_and_si256(ge_lo, lt_hi);
}

// Columns j of [0, nc) whose input index base + j * stride lies in [0, len):
// [*lo, *hi) (empty when *lo >= *hi).
static inline void valid_columns(int64_t base, int64_t stride, int64_t len, int64_t nc,
                                 int64_t* lo, int64_t* hi) {
  const int64_t first = base >= 0 ? 0 : (-base + stride - 1) / stride;
  const int64_t last = base >= len ? 0 : (len - 1 - base) / stride + 1;  // one past
  *lo = first < nc ? first : nc;
  *hi = last < nc ? last : nc;
}

}  // namespace

namespace detail {

void pack_conv1d_avx2(const void* context, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,
                      float* dst) {
  const Im2colSource& src = *static_cast<const Im2colSource*>(context);
  const Conv2dShape& s = *src.s;
  if (nr % 8 != 0 || !pack_conv1d_applies(s)) {
    pack_im2col_scalar(context, k0, kc, n0, nc, nr, dst);
    return;
  }
  const int64_t len = s.in_w, stride = s.stride_w, taps = s.kernel_w;
  const int64_t strip_floats = kc * nr;
  const int64_t padded = (nc + nr - 1) / nr * nr;  // columns up to the last strip's end
  const __m256 zero = _mm256_setzero_ps();
  int64_t ci = k0 / taps, tap = k0 % taps;
  for (int64_t k = 0; k < kc; ++k) {
    const float* row = src.x + ci * len;
    const int64_t base = n0 * stride - s.pad_w + tap * s.dilation_w;
    int64_t lo, hi;
    valid_columns(base, stride, len, nc, &lo, &hi);
    float* out = dst + k * nr;
    // Eight columns at a time; j and j + 7 always share a strip (nr % 8 == 0).
    for (int64_t j = 0, in_strip = 0; j < padded; j += 8) {
      float* o = out + in_strip;
      if ((in_strip += 8) == nr) in_strip = 0, out += strip_floats;
      const int64_t a = lo > j ? lo - j : 0, b = hi < j + 8 ? hi - j : 8;  // valid lanes [a, b)
      if (a >= b) {
        _mm256_storeu_ps(o, zero);
        continue;
      }
      const int64_t at = base + j * stride;  // input index of lane 0
      if (stride == 1) {
        if (a == 0 && b == 8) {
          _mm256_storeu_ps(o, _mm256_loadu_ps(row + at));
        } else {  // masked-off lanes read nothing and give 0
          _mm256_storeu_ps(o, _mm256_maskload_ps(masked_base(row, at), lane_range(a, b)));
        }
        continue;
      }
      if (stride == 2 && a == 0 && b == 8 && at + 16 <= len) {
        _mm256_storeu_ps(o, even_floats(_mm256_loadu_ps(row + at), _mm256_loadu_ps(row + at + 8)));
        continue;
      }
      for (int64_t t = 0; t < 8; ++t) o[t] = t >= a && t < b ? row[at + t * stride] : 0.0f;
    }
    if (++tap == taps) tap = 0, ++ci;
  }
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
