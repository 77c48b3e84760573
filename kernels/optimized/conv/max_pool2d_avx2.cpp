// Max pooling with indices, AVX2 build (-mavx2 -mfma): the interior of an
// output row, 8 outputs at a time (conv/max_pool2d.h). Stride 1 reads
// each window column with one load, stride 2 with two loads and a
// deinterleave (while the 16 floats stay inside the plane), other strides
// with a gather. Positions are tracked as int32 (planes under 2^31
// floats: the caller's condition) and widened when stored.
#include <immintrin.h>

#include "kernels/optimized/conv/max_pool2d.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

// The 8 inputs at plane[off + t * stride] (t = 0..7).
static inline __m256 load8(const float* plane, int64_t plane_size, int64_t off, int64_t stride,
                           __m256i lanes) {
  if (stride == 1) return _mm256_loadu_ps(plane + off);
  if (stride == 2 && off + 16 <= plane_size) {
    const __m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(plane + off),
                                       _mm256_loadu_ps(plane + off + 8), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  const __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(off)), lanes);
  return _mm256_i32gather_ps(plane, idx, 4);
}

}  // namespace

int64_t max_pool2d_row_avx2(const Pool2dShape& s, const float* plane, int64_t oh,
                            int64_t ow_begin, int64_t ow_end, float* y_row, int64_t* i_row) {
  const int64_t plane_size = s.in_h * s.in_w;
  const __m256i step = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lanes = _mm256_mullo_epi32(step, _mm256_set1_epi32(static_cast<int32_t>(s.stride_w)));
  const int64_t h0 = oh * s.stride_h - s.pad_h;
  int64_t ow = ow_begin;
  for (; ow + 8 <= ow_end; ow += 8) {
    const int64_t first = h0 * s.in_w + ow * s.stride_w - s.pad_w;
    __m256 best = load8(plane, plane_size, first, s.stride_w, lanes);
    const __m256i pos0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(first)), lanes);
    __m256i best_pos = pos0;
    for (int64_t i = 0; i < s.kernel_h; ++i) {
      for (int64_t j = i == 0 ? 1 : 0; j < s.kernel_w; ++j) {
        const int64_t off = i * s.in_w + j;
        const __m256 v = load8(plane, plane_size, first + off, s.stride_w, lanes);
        const __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ),
                                         _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        best = _mm256_blendv_ps(best, v, take);
        const __m256i pos = _mm256_add_epi32(pos0, _mm256_set1_epi32(static_cast<int32_t>(off)));
        best_pos = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best_pos),
                                                        _mm256_castsi256_ps(pos), take));
      }
    }
    _mm256_storeu_ps(y_row + ow, best);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(i_row + ow),
                        _mm256_cvtepi32_epi64(_mm256_castsi256_si128(best_pos)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(i_row + ow + 4),
                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(best_pos, 1)));
  }
  return ow;
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
