// Max pooling with indices (conv/max_pool2d.h): the plane walk, the border
// outputs and the ISA dispatch.
#include "kernels/optimized/conv/max_pool2d.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace optimized {
namespace {

// One output, exactly as the portable kernel computes it.
template <typename T>
void pool_one(const Pool2dShape& s, const T* plane, int64_t oh, int64_t ow, T* y, int64_t* idx) {
  int64_t h0 = oh * s.stride_h - s.pad_h, w0 = ow * s.stride_w - s.pad_w;
  const int64_t h_end = h0 + s.kernel_h, w_end = w0 + s.kernel_w;
  if (h0 < 0) h0 = 0;
  if (w0 < 0) w0 = 0;
  T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  int64_t best_index = h0 * s.in_w + w0;
  for (int64_t ih = h0; ih < h_end && ih < s.in_h; ++ih) {
    for (int64_t iw = w0; iw < w_end && iw < s.in_w; ++iw) {
      const T v = plane[ih * s.in_w + iw];
      if (v > best || v != v) {
        best = v;
        best_index = ih * s.in_w + iw;
      }
    }
  }
  *y = best;
  if (idx != nullptr) *idx = best_index;
}

template <typename T>
void max_pool2d_with_indices(const Pool2dShape& s, const T* x, T* y, int64_t* indices) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const bool simd = static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2);
#endif
#if defined(__aarch64__)
  // int8 values only: NEON byte maxima (max_pool2d_neon.cpp).
  [[maybe_unused]] const bool neon = std::is_same<T, int8_t>::value && indices == nullptr &&
                    best_arm_isa() >= ArmIsa::kNeon;
#endif
  // Columns whose windows neither start in the left padding nor run past
  // the right edge: w0 = ow * sw - pw >= 0 and w0 + kw <= W.
  [[maybe_unused]] const int64_t col_lo = (s.pad_w + s.stride_w - 1) / s.stride_w;
  int64_t col_hi = s.in_w - s.kernel_w + s.pad_w < 0
                       ? 0
                       : (s.in_w - s.kernel_w + s.pad_w) / s.stride_w + 1;
  if (col_hi > s.out_w) col_hi = s.out_w;
  const int64_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  parallel_for(0, s.planes, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const T* plane = x + p * in_plane;
      for (int64_t oh = 0; oh < s.out_h; ++oh) {
        T* yr = y + p * out_plane + oh * s.out_w;
        int64_t* ir = indices == nullptr ? nullptr : indices + p * out_plane + oh * s.out_w;
        auto index_at = [ir](int64_t ow) { return ir == nullptr ? nullptr : ir + ow; };
        const int64_t h0 = oh * s.stride_h - s.pad_h;
        // The window rows inside the input (a window of padding rows only
        // has none: pool_one's rule then applies).
        [[maybe_unused]] const int64_t i_begin = h0 < 0 ? -h0 : 0;
        [[maybe_unused]] const int64_t i_end = h0 + s.kernel_h > s.in_h ? s.in_h - h0 : s.kernel_h;
        int64_t ow = 0;
#ifndef TORCHEDGE_NO_X86_SIMD
        if (simd && i_begin < i_end && col_hi - col_lo >= 8) {
          for (; ow < col_lo; ++ow) pool_one(s, plane, oh, ow, yr + ow, index_at(ow));
          ow = detail::max_pool2d_row_avx2(s, plane, oh, i_begin, i_end, ow, col_hi, yr, ir);
        }
#endif
#if defined(__aarch64__)
        if constexpr (std::is_same<T, int8_t>::value) {
          if (neon && i_begin < i_end && col_hi - col_lo >= 16) {
            // The left border in the first 16 outputs where it can, else
            // the scalar loop.
            ow = detail::max_pool2d_left_i8_neon(s, plane, oh, i_begin, i_end, col_lo, col_hi, yr);
            for (; ow < col_lo; ++ow) pool_one(s, plane, oh, ow, yr + ow, nullptr);
            // Past the left chunk: the interior from where 16 outputs
            // remain at least (recomputing some of the chunk's: the same
            // values), so a short rest is not left to the scalar loop.
            ow = detail::max_pool2d_row_i8_neon(s, plane, oh, i_begin, i_end,
                                                std::min(ow, col_hi - 16), col_hi, yr);
          }
        }
#endif
        for (; ow < s.out_w; ++ow) pool_one(s, plane, oh, ow, yr + ow, index_at(ow));
      }
    }
  });
}

}  // namespace

void max_pool2d_with_indices_f32(const Pool2dShape& s, const float* x, float* y, int64_t* indices) {
  max_pool2d_with_indices(s, x, y, indices);
}

void max_pool2d_with_indices_i8(const Pool2dShape& s, const int8_t* x, int8_t* y,
                                int64_t* indices) {
  max_pool2d_with_indices(s, x, y, indices);
}

}  // namespace optimized
}  // namespace torchedge
