// Max pooling with indices, AVX2 build (-mavx2 -mfma): the columns of an
// output row whose windows do not touch the left/right padding, 8 outputs
// at a time (conv/max_pool2d.h). Stride 1 reads
// each window column with one load, stride 2 with two loads and a
// deinterleave (while the 16 floats stay inside the plane), other strides
// with a gather. Positions are tracked as int32 (planes under 2^31
// floats: the caller's condition) and widened when stored. int8 planes run
// the same float lanes: each 8 bytes are sign-extended and converted
// (exactly), compared as floats, and narrowed back when stored; the
// values-only 3-wide stride-2 pool on int8 takes byte maxima 16 at a time.
#include <immintrin.h>

#include <type_traits>

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

// The same from an int8 plane, as floats. Stride 1 reads 8 bytes, stride 2
// 16 (even bytes kept); other strides pick the bytes one by one.
static inline __m256 load8(const int8_t* plane, int64_t plane_size, int64_t off, int64_t stride,
                           __m256i) {
  __m128i bytes;
  if (stride == 1) {
    bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(plane + off));
  } else if (stride == 2 && off + 16 <= plane_size) {
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
    bytes = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(plane + off)), even);
  } else {
    alignas(16) int8_t picked[16] = {};
    for (int t = 0; t < 8; ++t) picked[t] = plane[off + t * stride];
    bytes = _mm_load_si128(reinterpret_cast<const __m128i*>(picked));
  }
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
}

static inline void store8(float* y, __m256 v) { _mm256_storeu_ps(y, v); }

static inline void store8(int8_t* y, __m256 v) {
  const __m256i i = _mm256_cvtps_epi32(v);  // whole numbers in [-128, 127]: exact
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(y), _mm_packs_epi16(words, words));
}

}  // namespace

namespace {

// kIndices: also track and store each max's position (i_row). Without them
// each tap is max(v, best) (which keeps best when either is NaN or they are
// equal) then v where v is NaN: the indexed rule's values bit for bit (a NaN
// is taken, the last one wins, nothing replaces it; ties keep the first).
// kStride, kKernelW: the stride and window width when known at compile time
// (0: read from s). ResNet's 3x3 / 2 pool spent most of its time on loop
// control and the stride tests of the generic loads.
template <bool kIndices, int kStride, int kKernelW, typename T>
int64_t row(const Pool2dShape& s, const T* plane, int64_t oh, int64_t i_begin, int64_t i_end,
            int64_t ow_begin, int64_t ow_end, T* y_row, int64_t* i_row) {
  if (ow_end - ow_begin < 8) return ow_begin;
  const int64_t plane_size = s.in_h * s.in_w;
  const int64_t stride_w = kStride > 0 ? kStride : s.stride_w;
  const int64_t kernel_w = kKernelW > 0 ? kKernelW : s.kernel_w;
  const __m256i step = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lanes = _mm256_mullo_epi32(step, _mm256_set1_epi32(static_cast<int32_t>(stride_w)));
  const int64_t h0 = oh * s.stride_h - s.pad_h + i_begin;  // first window row inside
  const int64_t rows = i_end - i_begin;
  for (int64_t ow = ow_begin;; ow += 8) {
    if (ow + 8 > ow_end) ow = ow_end - 8;  // the last vector overlaps the one before
    const int64_t first = h0 * s.in_w + ow * stride_w - s.pad_w;
    __m256 best = load8(plane, plane_size, first, stride_w, lanes);
    const __m256i pos0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(first)), lanes);
    __m256i best_pos = pos0;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = i == 0 ? 1 : 0; j < kernel_w; ++j) {
        const int64_t off = i * s.in_w + j;
        const __m256 v = load8(plane, plane_size, first + off, stride_w, lanes);
        if (kIndices) {
          const __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ),
                                           _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
          best = _mm256_blendv_ps(best, v, take);
          const __m256i pos = _mm256_add_epi32(pos0, _mm256_set1_epi32(static_cast<int32_t>(off)));
          best_pos = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best_pos),
                                                          _mm256_castsi256_ps(pos), take));
        } else {
          best = _mm256_blendv_ps(_mm256_max_ps(v, best), v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
      }
    }
    store8(y_row + ow, best);
    if (kIndices) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(i_row + ow),
                          _mm256_cvtepi32_epi64(_mm256_castsi256_si128(best_pos)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(i_row + ow + 4),
                          _mm256_cvtepi32_epi64(_mm256_extracti128_si256(best_pos, 1)));
    }
    if (ow + 8 >= ow_end) break;
  }
  return ow_end;
}

// Values only, int8, 3 wide / stride 2 (ResNet's stem pool on int8
// activations): 16 outputs per vector with byte maxima (no float lanes,
// ties and NaN cannot differ): per window row, the even and odd bytes of
// one 32-byte load and the even bytes of another 2 bytes on are the three
// columns of 16 windows. Columns whose 34-byte reads would pass the plane's
// end, and rows of fewer than 16 columns, take the generic row.
int64_t row_int8_3s2(const Pool2dShape& s, const int8_t* plane, int64_t oh, int64_t i_begin,
                     int64_t i_end, int64_t ow_begin, int64_t ow_end, int8_t* y_row) {
  if (ow_end - ow_begin < 16) {
    return row<false, 2, 3>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row, nullptr);
  }
  const int64_t plane_size = s.in_h * s.in_w;
  const int64_t h0 = oh * s.stride_h - s.pad_h + i_begin;
  const int64_t rows = i_end - i_begin;
  // Per 128-bit lane: even bytes to 0-7, odd to 8-15; then the 64-bit
  // quarters reordered to [even 16 | odd 16].
  const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                                         0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  auto even_odd = [&](const int8_t* p) {
    return _mm256_permute4x64_epi64(
        _mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), split),
        _MM_SHUFFLE(3, 1, 2, 0));
  };
  for (int64_t ow = ow_begin;; ow += 16) {
    if (ow + 16 > ow_end) ow = ow_end - 16;  // the last vector overlaps the one before
    const int64_t first = h0 * s.in_w + ow * 2 - s.pad_w;
    if (first + (rows - 1) * s.in_w + 34 > plane_size) {
      row<false, 2, 3>(s, plane, oh, i_begin, i_end, ow, ow_end, y_row, nullptr);
      break;
    }
    __m128i best = _mm_set1_epi8(-128);
    for (int64_t i = 0; i < rows; ++i) {
      const int8_t* r = plane + first + i * s.in_w;
      const __m256i a = even_odd(r), b = even_odd(r + 2);
      best = _mm_max_epi8(best, _mm_max_epi8(_mm256_castsi256_si128(a),
                                             _mm256_extracti128_si256(a, 1)));
      best = _mm_max_epi8(best, _mm256_castsi256_si128(b));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y_row + ow), best);
    if (ow + 16 >= ow_end) break;
  }
  return ow_end;
}

}  // namespace

template <typename T>
int64_t max_pool2d_row_avx2(const Pool2dShape& s, const T* plane, int64_t oh, int64_t i_begin,
                            int64_t i_end, int64_t ow_begin, int64_t ow_end, T* y_row,
                            int64_t* i_row) {
  const bool stem = s.stride_w == 2 && s.kernel_w == 3;  // ResNet's 3x3 / 2
  if constexpr (std::is_same<T, int8_t>::value) {
    if (stem && i_row == nullptr) {
      return row_int8_3s2(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row);
    }
  }
  if (i_row != nullptr) {
    return stem ? row<true, 2, 3>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row, i_row)
                : row<true, 0, 0>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row, i_row);
  }
  return stem ? row<false, 2, 3>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row, i_row)
              : row<false, 0, 0>(s, plane, oh, i_begin, i_end, ow_begin, ow_end, y_row, i_row);
}

template int64_t max_pool2d_row_avx2<float>(const Pool2dShape&, const float*, int64_t, int64_t,
                                            int64_t, int64_t, int64_t, float*, int64_t*);
template int64_t max_pool2d_row_avx2<int8_t>(const Pool2dShape&, const int8_t*, int64_t, int64_t,
                                             int64_t, int64_t, int64_t, int8_t*, int64_t*);

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
