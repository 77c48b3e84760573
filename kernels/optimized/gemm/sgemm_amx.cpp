// gemm/sgemm_amx.h: the AMX float32 GEMM. Compiled with AMX-TILE / AMX-BF16
// / AVX512-BF16 / AVX-512 (the _amx.cpp rule in CMakeLists.txt) and entered
// only when sgemm_amx_applies() (sgemm_amx_plan.cpp, baseline code).

#include "kernels/optimized/gemm/amx_bf16x3.h"
#include "kernels/optimized/gemm/sgemm_amx.h"
#include "kernels/optimized/gemm/sgemm_amx_layout.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

using amx_layout::Bf16;
using namespace amx_bf16x3;

// Rows [0, rows) of A (row stride lda) -> a panel's three tile-major planes
// (rows up to kPanelRows; zeros past `rows` to a multiple of 32, and past K).
// Whether all were splittable (unsplittable() in amx_bf16x3.h).
bool split_a(const float* a, int64_t lda, int64_t rows, int64_t k, const amx_layout::Sizes& z,
             Bf16* panel) {
  __mmask16 bad = 0;
  const int64_t steps = z.k_padded / 32;
  for (int64_t i = 0; i < (rows + 31) / 32 * 32; ++i) {
    const float* src = a + i * lda;
    for (int64_t s = 0; s < steps; ++s) {
      __m512 x[2];
      for (int h = 0; h < 2; ++h) {
        const int64_t k0 = s * 32 + h * 16;
        if (i >= rows || k0 >= k) {
          x[h] = _mm512_setzero_ps();
        } else if (k0 + 16 <= k) {
          x[h] = _mm512_loadu_ps(src + k0);
        } else {
          x[h] = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << (k - k0)) - 1), src + k0);
        }
        bad |= unsplittable(x[h]);
      }
      store_a_step(x[0], x[1], z, panel + amx_layout::a_offset(z, i, s));
    }
  }
  return bad == 0;
}

// Rows [m0, m0 + rows) x columns [n0, n0 + 32) of C from the 32 x 32 sums
// in `sums`: ((sum + bias) + beta * addend), then GELU, sgemm.h's order.
void store_block(const SgemmProblem& p, const float* sums, int64_t m0, int64_t rows,
                 int64_t n0) {
  const int64_t cols = p.n - n0 < 32 ? p.n - n0 : 32;
  for (int h = 0; h < 2; ++h) {
    const int64_t left = cols - 16 * h;
    if (left <= 0) break;
    const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    const int64_t n = n0 + 16 * h;
    const __m512 bias =
        p.col_bias == nullptr ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask, p.col_bias + n);
    for (int64_t r = 0; r < rows; ++r) {
      __m512 v = _mm512_load_ps(sums + r * 32 + 16 * h);
      if (p.col_bias != nullptr) v = _mm512_add_ps(v, bias);
      if (p.beta != 0.0f) {
        const float* add = p.addend.data + (m0 + r) * p.addend.row_stride + n;
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, add));
      }
      if (p.gelu) v = vec_avx512::gelu_erf(v);
      _mm512_mask_storeu_ps(p.c + (m0 + r) * p.ldc + n, mask, v);
    }
  }
}

}  // namespace

Error sgemm_amx(KernelContext& ctx, const SgemmProblem& p) {
  const amx_layout::Sizes z = amx_layout::sizes(p.n, p.k);
  const auto strip_at = [&](int64_t s) { return p.b_prepacked + s * p.k * 16; };
  return run_product(
      ctx, "sgemm_amx", p.m, p.n, p.k, strip_at, 16, z,
      [&](int64_t m0, int64_t rows, Bf16* panel) {
        return split_a(p.a.data + m0 * p.a.row_stride, p.a.row_stride, rows, p.k, z, panel);
      },
      [&](const float* sums, int64_t m0, int64_t rows, int64_t n0) {
        store_block(p, sums, m0, rows, n0);
      });
}

}  // namespace optimized
}  // namespace torchedge
