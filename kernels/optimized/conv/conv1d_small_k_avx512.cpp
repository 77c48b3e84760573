// Direct 1-d convolution for short dot products, AVX-512 build: see
// conv/conv1d_small_k.h.
#include <immintrin.h>

#include "kernels/optimized/conv/conv1d_small_k.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int kRows = 4;     // output channels per pass
constexpr int kVectors = 4;  // 64 positions per tile

// Rows [co, co + rows) of y over positions [0, n): cols[k * ld + o] is the
// input under tap k for position o.
template <int kR>
void run_rows(int64_t co, int64_t kk, const float* cols, int64_t ld, int64_t n, const float* w,
              const float* bias, const Conv2dClamp& clamp, float* y, int64_t ldy) {
  float b[kR];
  for (int r = 0; r < kR; ++r) b[r] = bias == nullptr ? 0.0f : bias[co + r];
  const __m512 lo = _mm512_set1_ps(clamp.min), hi = _mm512_set1_ps(clamp.max);
  const bool clamped = clamp.active();
  auto finish = [&](__m512 v, int r) {
    v = _mm512_add_ps(v, _mm512_set1_ps(b[r]));
    // min(max, max(min, v)): NaN stays NaN, as the GEMM's epilogue.
    return clamped ? _mm512_min_ps(hi, _mm512_max_ps(lo, v)) : v;
  };
  const float* wr = w + co * kk;
  int64_t o = 0;
  for (; o + 16 * kVectors <= n; o += 16 * kVectors) {
    __m512 acc[kR][kVectors];
    for (int r = 0; r < kR; ++r) {
      for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_setzero_ps();
    }
    for (int64_t k = 0; k < kk; ++k) {
      __m512 c[kVectors];
      for (int v = 0; v < kVectors; ++v) c[v] = _mm512_loadu_ps(cols + k * ld + o + 16 * v);
      for (int r = 0; r < kR; ++r) {
        const __m512 a = _mm512_set1_ps(wr[r * kk + k]);
        for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_fmadd_ps(a, c[v], acc[r][v]);
      }
    }
    for (int r = 0; r < kR; ++r) {
      for (int v = 0; v < kVectors; ++v) {
        _mm512_storeu_ps(y + (co + r) * ldy + o + 16 * v, finish(acc[r][v], r));
      }
    }
  }
  for (; o < n; o += 16) {  // the last < 64 positions, 16 at a time
    const __mmask16 m = n - o >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - o)) - 1);
    __m512 acc[kR];
    for (int r = 0; r < kR; ++r) acc[r] = _mm512_setzero_ps();
    for (int64_t k = 0; k < kk; ++k) {
      const __m512 c = _mm512_maskz_loadu_ps(m, cols + k * ld + o);
      for (int r = 0; r < kR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(wr[r * kk + k]), c, acc[r]);
    }
    for (int r = 0; r < kR; ++r) _mm512_mask_storeu_ps(y + (co + r) * ldy + o, m, finish(acc[r], r));
  }
}

}  // namespace

namespace detail {

Error conv1d_small_k_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, float* y,
                            const Conv2dClamp& clamp) {
  const int64_t taps = s.kernel_w, kk = s.in_channels * taps, n = s.out_w;
  const int64_t ld = (n + 15) / 16 * 16;
  const size_t bytes = sizeof(float) * static_cast<size_t>(kk * ld);
  float* cols = static_cast<float*>(ctx.allocate_temp(bytes, 64));
  TE_CHECK_OR_RETURN(cols != nullptr, Error::MemoryAllocationFailed,
                     "convolution: no room for %zu bytes of gathered rows", bytes);
  const int64_t groups = (s.out_channels + kRows - 1) / kRows;
  for (int64_t img = 0; img < s.batch; ++img) {
    const float* xi = x + img * s.in_channels * s.in_w;
    float* yi = y + img * s.out_channels * n;
    for (int64_t k = 0; k < kk; ++k) {  // row k = (ci, tap) of the im2col matrix
      const float* row = xi + (k / taps) * s.in_w;
      const int64_t first = (k % taps) * s.dilation_w - s.pad_w;
      for (int64_t o = 0; o < n; ++o) {
        const int64_t i = first + o * s.stride_w;
        cols[k * ld + o] = i >= 0 && i < s.in_w ? row[i] : 0.0f;
      }
    }
    parallel_for(0, groups, 4, [&](int64_t begin, int64_t end) {
      for (int64_t g = begin; g < end; ++g) {
        const int64_t co = g * kRows, rows = s.out_channels - co;
        switch (rows >= kRows ? kRows : rows) {
          case 4: run_rows<4>(co, kk, cols, ld, n, w, bias, clamp, yi, n); break;
          case 3: run_rows<3>(co, kk, cols, ld, n, w, bias, clamp, yi, n); break;
          case 2: run_rows<2>(co, kk, cols, ld, n, w, bias, clamp, yi, n); break;
          default: run_rows<1>(co, kk, cols, ld, n, w, bias, clamp, yi, n); break;
        }
      }
    });
  }
  return Error::Ok;
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
