// gemm/sgemm_amx.h: the AMX float32 GEMM. Compiled with AMX-TILE / AMX-BF16
// / AVX512-BF16 / AVX-512 (the _amx.cpp rule in CMakeLists.txt) and entered
// only when sgemm_amx_applies() (sgemm_amx_plan.cpp, baseline code).

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -W(maybe-)uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <atomic>
#include <cstring>

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

struct alignas(64) TileConfig {
  unsigned char palette = 1, start_row = 0, reserved[14] = {};
  unsigned short bytes_per_row[16] = {};
  unsigned char rows[16] = {};
};

// Lanes holding an infinity or NaN (fpclass: QNaN, +inf, -inf, SNaN).
inline __mmask16 non_finite(__m512 x) { return _mm512_fpclass_ps_mask(x, 0x99); }

// x = t0 + t1 + t2, each exactly a bfloat16 (see sgemm_amx.h).
inline void split3(__m512 x, __m512* t0, __m512* t1, __m512* t2) {
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  *t0 = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), high));
  const __m512 r = _mm512_sub_ps(x, *t0);
  *t1 = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(r), high));
  *t2 = _mm512_sub_ps(r, *t1);
}

inline __m512i to_bf16_pair(__m512 high_half, __m512 low_half) {
  return (__m512i)_mm512_cvtne2ps_pbh(high_half, low_half);
}

// Strips [s0, s1) of B (16-wide, K rows each) -> the three planes of
// amx_layout. Returns whether every value was finite.
bool split_b(const float* strips, int64_t k, int64_t s0, int64_t s1, const amx_layout::Sizes& z,
             Bf16* planes) {
  // vpermw index: pairs (k row n, k + 1 row n) from [k row | k + 1 row].
  alignas(64) static const uint16_t kInterleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                       21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26,
                                                       11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i interleave = _mm512_load_si512(kInterleave);
  __mmask16 bad = 0;
  for (int64_t s = s0; s < s1; ++s) {
    const float* strip = strips + s * k * 16;
    for (int64_t kk = 0; kk < z.k_padded; kk += 2) {
      const __m512 row0 = kk < k ? _mm512_loadu_ps(strip + kk * 16) : _mm512_setzero_ps();
      const __m512 row1 = kk + 1 < k ? _mm512_loadu_ps(strip + (kk + 1) * 16) : _mm512_setzero_ps();
      bad |= non_finite(row0) | non_finite(row1);
      __m512 a[3], b[3];
      split3(row0, &a[0], &a[1], &a[2]);
      split3(row1, &b[0], &b[1], &b[2]);
      const size_t at = amx_layout::b_offset(z, s, kk);
      for (int t = 0; t < 3; ++t) {
        _mm512_store_si512(planes + t * z.b_plane + at,
                           _mm512_permutexvar_epi16(interleave, to_bf16_pair(b[t], a[t])));
      }
    }
  }
  return bad == 0;
}

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
      __m512 t0[2], t1[2], t2[2];
      split3(x[0], &t0[0], &t1[0], &t2[0]);
      split3(x[1], &t0[1], &t1[1], &t2[1]);
      Bf16* dst = panel + amx_layout::a_offset(z, i, s);
      _mm512_store_si512(dst, to_bf16_pair(t0[1], t0[0]));
      _mm512_store_si512(dst + z.a_plane, to_bf16_pair(t1[1], t1[0]));
      _mm512_store_si512(dst + 2 * z.a_plane, to_bf16_pair(t2[1], t2[0]));
    }
  }
  return bad == 0;
}

// The six products of one 32 x 32 block of C over all of K, left in tiles 0-3.
void block_products(const Bf16* a_rows, const Bf16* b_left, const amx_layout::Sizes& z) {
  const int64_t steps = z.k_padded / 32;
  const int64_t second_rows = steps * 512;  // the block's rows 16..31
  const int64_t right = (z.k_padded / 2) * 32;  // the next 16-column strip
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t s = 0; s < steps; ++s) {
    const Bf16* a0 = a_rows + s * 512;
    const Bf16* b0 = b_left + s * 512;
#define TE_AMX_PRODUCTS4   \
  _tile_dpbf16ps(0, 4, 6); \
  _tile_dpbf16ps(1, 4, 7); \
  _tile_dpbf16ps(2, 5, 6); \
  _tile_dpbf16ps(3, 5, 7);
    _tile_loadd(4, a0, 64);
    _tile_loadd(5, a0 + second_rows, 64);
    _tile_loadd(6, b0, 64);
    _tile_loadd(7, b0 + right, 64);
    TE_AMX_PRODUCTS4  // A0 B0
    _tile_loadd(6, b0 + z.b_plane, 64);
    _tile_loadd(7, b0 + z.b_plane + right, 64);
    TE_AMX_PRODUCTS4  // A0 B1
    _tile_loadd(6, b0 + 2 * z.b_plane, 64);
    _tile_loadd(7, b0 + 2 * z.b_plane + right, 64);
    TE_AMX_PRODUCTS4  // A0 B2
    _tile_loadd(4, a0 + z.a_plane, 64);
    _tile_loadd(5, a0 + z.a_plane + second_rows, 64);
    _tile_loadd(6, b0 + z.b_plane, 64);
    _tile_loadd(7, b0 + z.b_plane + right, 64);
    TE_AMX_PRODUCTS4  // A1 B1
    _tile_loadd(6, b0, 64);
    _tile_loadd(7, b0 + right, 64);
    TE_AMX_PRODUCTS4  // A1 B0
    _tile_loadd(4, a0 + 2 * z.a_plane, 64);
    _tile_loadd(5, a0 + 2 * z.a_plane + second_rows, 64);
    TE_AMX_PRODUCTS4  // A2 B0
#undef TE_AMX_PRODUCTS4
  }
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
  parallel_for(0, z.strips, 1, [&](int64_t s0, int64_t s1) {
    if (!split_b(p.b_prepacked, p.k, s0, s1, z, b_planes)) finite = false;
  });
  if (z.strips_padded > z.strips) {  // the zero strip beside an odd last one
    for (int t = 0; t < 3; ++t) {
      std::memset(b_planes + t * z.b_plane + amx_layout::b_offset(z, z.strips, 0), 0,
                  sizeof(Bf16) * (z.k_padded / 2) * 32);
    }
  }
  TE_CHECK_OR_RETURN(finite, Error::NotSupported,
                     "sgemm_amx: the weights hold an infinity or NaN");
  parallel_for_slots(0, panels, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
    TileConfig config;
    for (int t = 0; t < 8; ++t) config.rows[t] = 16, config.bytes_per_row[t] = 64;
    _tile_loadconfig(&config);
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
          _tile_stored(0, sums, 128);
          _tile_stored(1, sums + 16, 128);
          _tile_stored(2, sums + 512, 128);
          _tile_stored(3, sums + 528, 128);
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
