// conv2d_blocked on the AMX tile unit (conv/conv2d_blocked.h,
// conv2d_blocked_amx). Compiled with AMX-TILE / AMX-BF16 / AVX512-BF16 (the
// _amx.cpp rule in CMakeLists.txt) and entered only when
// conv2d_blocked_amx_applies() (conv2d_blocked.cpp, baseline code).
//
// The convolution is the GEMM  C[pixels x Cout] = A[pixels x K] * B[K x Cout]
// with K = Cin * KH * KW in the packed weights' order (input channel block,
// kernel row, kernel column, 16 channels): row q of A is, chunk after chunk
// of 16 values, the channel blocks of the input pixels output pixel q
// reads, each 64 contiguous bytes of the NCHW16c input (or zeros in the
// padding). So A is never built: each 128-pixel panel is gathered straight
// from the input into the three tile-major bfloat16 planes the products
// read (gemm/amx_bf16x3.h), B's 16-column strips are the packed weights'
// 64-channel groups read with row stride 64, and each 32-pixel x 32-channel
// block of C is stored into two output channel blocks with the blocked
// kernel's epilogue.

#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/gemm/amx_bf16x3.h"
#include "kernels/optimized/gemm/sgemm_amx_layout.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

using amx_layout::Bf16;
using namespace amx_bf16x3;

// The operands and the epilogue. GEMM row m is output pixel m % (OH OW) of
// image m / (OH OW), so a panel may span two images.
struct Operands {
  const Conv2dShape& s;
  const float* x;         // [N, Cin / 16, H, W, 16]
  float* y;               // [N, Cout / 16, OH, OW, 16]
  const float* residual;  // laid out as y, or null
  const float* bias;      // [Cout], or null
  Conv2dClamp clamp;
  BlockedActivation activation;
};

// GEMM rows [m0, m0 + rows) -> a panel's three planes: row i holds the K
// values its output pixel reads, chunk (cb, r, t) the 16 channels of
// block cb at input pixel (oh * sh - ph + r, ow * sw - pw + t). Rows past
// `rows` (to a multiple of 32) and K past its end are zeros. Returns whether
// all were splittable (unsplittable() in amx_bf16x3.h).
bool gather_panel(const Operands& o, int64_t m0, int64_t rows, const amx_layout::Sizes& z,
                  Bf16* panel) {
  const Conv2dShape& s = o.s;
  const int64_t chunks = s.in_channels / kConvBlock * s.kernel_h * s.kernel_w;
  const int64_t plane = s.in_h * s.in_w * kConvBlock, pixels = s.out_h * s.out_w;
  __mmask16 bad = 0;
  for (int64_t i = 0; i < (rows + 31) / 32 * 32; ++i) {
    const int64_t image = (m0 + i) / pixels, q = (m0 + i) % pixels;
    const int64_t h0 = q / s.out_w * s.stride_h - s.pad_h, w0 = q % s.out_w * s.stride_w - s.pad_w;
    int64_t cb = 0, r = 0, t = 0;  // chunk j's coordinates, advanced with j
    const float* block = o.x + image * s.in_channels * s.in_h * s.in_w;
    for (int64_t j = 0; j < z.k_padded / 16; j += 2) {
      __m512 v[2];
      for (int h = 0; h < 2; ++h) {
        const int64_t ih = h0 + r, iw = w0 + t;
        if (i >= rows || j + h >= chunks || ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) {
          v[h] = _mm512_setzero_ps();
        } else {
          v[h] = _mm512_loadu_ps(block + (ih * s.in_w + iw) * kConvBlock);
          bad |= unsplittable(v[h]);
        }
        if (++t == s.kernel_w) {
          t = 0;
          if (++r == s.kernel_h) r = 0, ++cb, block += plane;
        }
      }
      store_a_step(v[0], v[1], z, panel + amx_layout::a_offset(z, i, j / 2));
    }
  }
  return bad == 0;
}

// GEMM rows [m0, m0 + rows) x channels [n0, n0 + 32) from the 32 x 32
// sums: ((sum + residual) + bias), clamp (NaN kept), then the activation,
// each 16 channels stored into their block of y.
void store_block(const Operands& o, const float* sums, int64_t m0, int64_t rows, int64_t n0) {
  const int64_t pixels = o.s.out_h * o.s.out_w, image_size = o.s.out_channels * pixels;
  const __m512 lo = _mm512_set1_ps(o.clamp.min), hi = _mm512_set1_ps(o.clamp.max);
  for (int h = 0; h < 2 && n0 + 16 * h < o.s.out_channels; ++h) {
    const int64_t n = n0 + 16 * h;
    const __m512 bias = o.bias == nullptr ? _mm512_setzero_ps() : _mm512_loadu_ps(o.bias + n);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t image = (m0 + r) / pixels, q = (m0 + r) % pixels;
      const int64_t at = image * image_size + (n / kConvBlock * pixels + q) * kConvBlock;
      __m512 v = _mm512_load_ps(sums + r * 32 + 16 * h);
      if (o.residual != nullptr) v = _mm512_add_ps(v, _mm512_loadu_ps(o.residual + at));
      if (o.bias != nullptr) v = _mm512_add_ps(v, bias);
      // max/min take v second so a NaN stays NaN.
      v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
      if (o.activation == BlockedActivation::kGelu) v = vec_avx512::gelu_erf(v);
      if (o.activation == BlockedActivation::kSilu) v = vec_avx512::silu(v);
      _mm512_storeu_ps(o.y + at, v);
    }
  }
}

}  // namespace

namespace detail {

Error conv2d_blocked_amx(KernelContext& ctx, const Conv2dShape& s, const float* x,
                         const float* w, const float* bias, const float* residual, float* y,
                         const Conv2dClamp& clamp, BlockedActivation activation) {
  const int64_t k = s.in_channels * s.kernel_h * s.kernel_w, pixels = s.out_h * s.out_w;
  const amx_layout::Sizes z = amx_layout::sizes(s.out_channels, k);
  const int64_t m = s.batch * pixels;
  // Strip s: 16 output channels of 64-channel group s / 4, K rows of 64.
  const auto strip_at = [&](int64_t strip) {
    return w + strip / 4 * k * kConvBlockGroup + strip % 4 * kConvBlock;
  };
  const Operands o{s, x, y, residual, bias, clamp, activation};
  return run_product(
      ctx, "conv2d_blocked_amx", m, s.out_channels, k, strip_at, kConvBlockGroup, z,
      [&](int64_t m0, int64_t rows, Bf16* panel) { return gather_panel(o, m0, rows, z, panel); },
      [&](const float* sums, int64_t m0, int64_t rows, int64_t n0) {
        store_block(o, sums, m0, rows, n0);
      });
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
