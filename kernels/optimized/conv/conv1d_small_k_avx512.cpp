// Direct 1-d convolutions, AVX-512 build: see conv/conv1d_small_k.h.
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized inside their own
// masked-store intrinsics (a false positive), as in the other AVX-512 units.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <cstring>

#include "kernels/optimized/conv/conv1d_small_k.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int kRows = 4;     // output channels per pass
constexpr int kVectors = 4;  // up to 64 positions per tile

// The rows of one group's (virtual) im2col matrix: row (ci, tap) is the
// input under that tap for output positions 0, 1, ... at
// base + ci * ci_stride + tap * tap_stride, readable (not necessarily
// meaningful) up to the next multiple of 16 positions past the output's end.
struct TapRows {
  const float* base;
  int64_t channels, taps, ci_stride, tap_stride;
};

struct Epilogue {
  const float* bias;  // the group's, or null
  Conv2dClamp clamp;
};

// kR output channels x kV vectors of positions starting at o; the last
// vector is stored under `last` (positions past the output's end are
// computed from readable padding and dropped). Sums run k = (ci, tap) in
// order from zero as FMAs, then the bias, then the clamp: the SGEMM's order.
template <int kR, int kV>
void tile(const TapRows& in, int64_t o, __mmask16 last, const float* wr, int64_t kk,
          int64_t co, const Epilogue& e, float* y, int64_t ldy) {
  __m512 acc[kR][kV];
  for (int r = 0; r < kR; ++r) {
    for (int v = 0; v < kV; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  const float* wk = wr;
  for (int64_t ci = 0; ci < in.channels; ++ci) {
    const float* row = in.base + ci * in.ci_stride + o;
    for (int64_t tap = 0; tap < in.taps; ++tap, ++wk, row += in.tap_stride) {
      __m512 c[kV];
      for (int v = 0; v < kV; ++v) c[v] = _mm512_loadu_ps(row + 16 * v);
      for (int r = 0; r < kR; ++r) {
        const __m512 a = _mm512_set1_ps(wk[r * kk]);
        for (int v = 0; v < kV; ++v) acc[r][v] = _mm512_fmadd_ps(a, c[v], acc[r][v]);
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(e.clamp.min), hi = _mm512_set1_ps(e.clamp.max);
  const bool clamped = e.clamp.active();
  for (int r = 0; r < kR; ++r) {
    const __m512 b = _mm512_set1_ps(e.bias == nullptr ? 0.0f : e.bias[co + r]);
    float* out = y + (co + r) * ldy + o;
    for (int v = 0; v < kV; ++v) {
      __m512 s = _mm512_add_ps(acc[r][v], b);
      // min(max, max(min, s)): NaN stays NaN, as the GEMM's epilogue.
      if (clamped) s = _mm512_min_ps(hi, _mm512_max_ps(lo, s));
      if (v + 1 < kV) {
        _mm512_storeu_ps(out + 16 * v, s);
      } else {
        _mm512_mask_storeu_ps(out + 16 * v, last, s);
      }
    }
  }
}

// Output channels [co, co + kR) of one group over positions [0, n).
template <int kR>
void run_rows(const TapRows& in, int64_t n, const float* w, int64_t co, const Epilogue& e,
              float* y) {
  const int64_t kk = in.channels * in.taps;
  const float* wr = w + co * kk;
  for (int64_t o = 0; o < n; o += 16 * kVectors) {
    const int64_t left = n - o;
    const int vectors = left >= 16 * kVectors ? kVectors : static_cast<int>((left + 15) / 16);
    const int64_t tail = left - 16 * (vectors - 1);
    const __mmask16 last = tail >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << tail) - 1);
    switch (vectors) {
      case 4: tile<kR, 4>(in, o, last, wr, kk, co, e, y, n); break;
      case 3: tile<kR, 3>(in, o, last, wr, kk, co, e, y, n); break;
      case 2: tile<kR, 2>(in, o, last, wr, kk, co, e, y, n); break;
      default: tile<kR, 1>(in, o, last, wr, kk, co, e, y, n); break;
    }
  }
}

void run_channels(const TapRows& in, int64_t n, const float* w, int64_t co, int64_t rows,
                  const Epilogue& e, float* y) {
  switch (rows >= kRows ? kRows : rows) {
    case 4: run_rows<4>(in, n, w, co, e, y); break;
    case 3: run_rows<3>(in, n, w, co, e, y); break;
    case 2: run_rows<2>(in, n, w, co, e, y); break;
    default: run_rows<1>(in, n, w, co, e, y); break;
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
  const TapRows in{cols, s.in_channels, taps, taps * ld, ld};
  const Epilogue e{bias, clamp};
  const int64_t passes = (s.out_channels + kRows - 1) / kRows;
  for (int64_t img = 0; img < s.batch; ++img) {
    const float* xi = x + img * s.in_channels * s.in_w;
    float* yi = y + img * s.out_channels * n;
    for (int64_t k = 0; k < kk; ++k) {  // row k = (ci, tap) of the im2col matrix
      const float* row = xi + (k / taps) * s.in_w;
      const int64_t first = (k % taps) * s.dilation_w - s.pad_w;
      for (int64_t o = 0; o < ld; ++o) {
        const int64_t i = first + o * s.stride_w;
        cols[k * ld + o] = o < n && i >= 0 && i < s.in_w ? row[i] : 0.0f;
      }
    }
    parallel_for(0, passes, 4, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        run_channels(in, n, w, p * kRows, s.out_channels - p * kRows, e, yi);
      }
    });
  }
  return Error::Ok;
}

Error conv1d_grouped_avx512(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, float* y,
                            const Conv2dClamp& clamp) {
  const int64_t n = s.out_w, taps = s.kernel_w;
  const int64_t cin_g = s.in_channels / s.groups, cout_g = s.out_channels / s.groups;
  // Each input row zero-padded once: pad_w zeros, the row, then zeros up to
  // what the last tile reads ((taps - 1) * dilation past the last position,
  // positions rounded up to 16).
  const int64_t padded = ((n + 15) / 16 * 16 + (taps - 1) * s.dilation_w + 15) / 16 * 16;
  const size_t bytes = sizeof(float) * static_cast<size_t>(s.in_channels * padded);
  float* rows = static_cast<float*>(ctx.allocate_temp(bytes, 64));
  TE_CHECK_OR_RETURN(rows != nullptr, Error::MemoryAllocationFailed,
                     "convolution: no room for %zu bytes of padded rows", bytes);
  const int64_t copied = s.in_w < padded - s.pad_w ? s.in_w : padded - s.pad_w;
  const int64_t passes_per_group = (cout_g + kRows - 1) / kRows;
  for (int64_t img = 0; img < s.batch; ++img) {
    const float* xi = x + img * s.in_channels * s.in_w;
    float* yi = y + img * s.out_channels * n;
    for (int64_t ci = 0; ci < s.in_channels; ++ci) {
      float* row = rows + ci * padded;
      std::memset(row, 0, sizeof(float) * static_cast<size_t>(padded));
      if (copied > 0) std::memcpy(row + s.pad_w, xi + ci * s.in_w, sizeof(float) * copied);
    }
    parallel_for(0, s.groups * passes_per_group, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t g = p / passes_per_group, co = (p % passes_per_group) * kRows;
        const TapRows in{rows + g * cin_g * padded, cin_g, taps, padded, s.dilation_w};
        const Epilogue e{bias == nullptr ? nullptr : bias + g * cout_g, clamp};
        run_channels(in, n, w + g * cout_g * cin_g * taps, co, cout_g - co, e,
                     yi + g * cout_g * n);
      }
    });
  }
  return Error::Ok;
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
