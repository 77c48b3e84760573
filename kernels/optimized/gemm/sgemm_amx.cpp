// gemm/sgemm_amx.h: the AMX float32 GEMM. Compiled with AMX-TILE / AMX-BF16
// / AVX512-BF16 / AVX-512 (the _amx.cpp rule in CMakeLists.txt) and entered
// only when sgemm_amx_applies() (sgemm_amx_plan.cpp, baseline code).

#include <atomic>

#include "kernels/optimized/gemm/amx_bf16x3.h"
#include "kernels/optimized/gemm/sgemm_amx.h"
#include "kernels/optimized/gemm/sgemm_amx_layout.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/vec_math_avx512.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace {

using amx_layout::Bf16;
using amx_layout::kPanelRows;
using namespace amx_bf16x3;

// Rows [0, rows) of A (row stride lda) -> a panel's three tile-major planes
// (rows up to kPanelRows, zeros past `rows` and past K). Whether all finite.
bool split_a(const float* a, int64_t lda, int64_t rows, int64_t k, const amx_layout::Sizes& z,
             Bf16* panel) {
  __mmask16 bad = 0;
  const int64_t steps = z.k_padded / 32;
  for (int64_t i = 0; i < kPanelRows; ++i) {
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
        bad |= non_finite(x[h]);
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
  const int64_t panels = (p.m + kPanelRows - 1) / kPanelRows;
  const int64_t slots = amx_layout::slots(panels);
  const size_t bytes = amx_layout::scratch_bytes(z, slots);
  auto* scratch = static_cast<Bf16*>(ctx.allocate_temp(bytes, 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "sgemm_amx: no room for %zu bytes of split operands", bytes);
  Bf16* b_planes = scratch;
  Bf16* a_panels = scratch + 3 * z.b_plane;
  std::atomic<bool> finite{true};
  // B first, every strip pair (a zero strip pads an odd count), before any C.
  const auto strip_at = [&](int64_t s) { return p.b_prepacked + s * p.k * 16; };
  parallel_for(0, z.strips, 1, [&](int64_t s0, int64_t s1) {
    if (!split_b(strip_at, 16, p.k, s0, s1, z, b_planes)) finite = false;
  });
  zero_pad_strip(z, b_planes);
  TE_CHECK_OR_RETURN(finite, Error::NotSupported,
                     "sgemm_amx: the weights hold an infinity or NaN");
  parallel_for_slots(0, panels, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
    configure_tiles();
    Bf16* panel = a_panels + slot * 3 * z.a_plane;
    alignas(64) float sums[32 * 32];
    for (int64_t index = begin; index < end && finite.load(std::memory_order_relaxed); ++index) {
      const int64_t m0 = index * kPanelRows;
      const int64_t rows = p.m - m0 < kPanelRows ? p.m - m0 : kPanelRows;
      if (!split_a(p.a.data + m0 * p.a.row_stride, p.a.row_stride, rows, p.k, z, panel)) {
        finite = false;
        break;
      }
      for (int64_t n0 = 0; n0 < p.n; n0 += 32) {
        const Bf16* b_left = b_planes + amx_layout::b_offset(z, n0 / 16, 0);
        for (int64_t mb = 0; mb < rows; mb += 32) {
          block_products(panel + amx_layout::a_offset(z, mb, 0), b_left, z);
          store_sums(sums);
          store_block(p, sums, m0 + mb, rows - mb < 32 ? rows - mb : 32, n0);
        }
      }
    }
    _tile_release();
  });
  TE_CHECK_OR_RETURN(finite, Error::NotSupported,
                     "sgemm_amx: the activations hold an infinity or NaN");
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
