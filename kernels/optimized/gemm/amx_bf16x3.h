// torchedge/kernels/optimized/gemm/amx_bf16x3.h
//
// The pieces of the float32-accurate AMX product (gemm/sgemm_amx.h has the
// method: every float32 operand split into three exact bfloat16 terms, six
// tile products per 32 k) that more than one kernel runs: the split, B's
// VNNI-pair planes, A's tile-major panel rows, and the products of one
// 32 x 32 block of C. The linear layers (gemm/sgemm_amx.cpp) and the
// channel-blocked convolutions (conv/conv2d_blocked_amx.cpp) differ only in
// where A's rows and B's strips come from and where C goes.
//
// Include this header ONLY from *_amx.cpp translation units (compiled with
// AMX-TILE / AMX-BF16 / AVX512-BF16, entered only when amx_usable()): like
// gemm/sgemm_driver.h, everything here is static, so each such unit gets its
// own copies.
#pragma once

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -W(maybe-)uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <atomic>
#include <cstring>

#include "kernels/optimized/gemm/sgemm_amx_layout.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {
namespace amx_bf16x3 {

using amx_layout::Bf16;

struct alignas(64) TileConfig {
  unsigned char palette = 1, start_row = 0, reserved[14] = {};
  unsigned short bytes_per_row[16] = {};
  unsigned char rows[16] = {};
};

// Tiles 0-7 as 16 rows x 64 bytes (the calling thread's configuration;
// _tile_release() when done).
static inline void configure_tiles() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) config.rows[t] = 16, config.bytes_per_row[t] = 64;
  _tile_loadconfig(&config);
}

// Lanes the split cannot carry (fpclass: QNaN, +inf, -inf, subnormal, SNaN):
// an infinity's split would be NaN, and TDPBF16PS reads subnormal bfloat16
// terms as zero, so a subnormal operand would vanish (a model computing on
// subnormal numbers, as transformers' default-initialized MobileViT does,
// came out all zeros). Normal values keep their leading term; their small
// terms may flush, an error below 2^-126 absolute per product.
static inline __mmask16 unsplittable(__m512 x) { return _mm512_fpclass_ps_mask(x, 0xB9); }

// x = t0 + t1 + t2, each exactly a bfloat16 (see gemm/sgemm_amx.h).
static inline void split3(__m512 x, __m512* t0, __m512* t1, __m512* t2) {
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  *t0 = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), high));
  const __m512 r = _mm512_sub_ps(x, *t0);
  *t1 = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(r), high));
  *t2 = _mm512_sub_ps(r, *t1);
}

static inline __m512i to_bf16_pair(__m512 high_half, __m512 low_half) {
  return (__m512i)_mm512_cvtne2ps_pbh(high_half, low_half);
}

// k values [k0, k0 + 16) and [k0 + 16, k0 + 32) of one row of A -> the
// row's 32-k slot in the panel's three planes (`dst` in plane 0).
static inline void store_a_step(__m512 low, __m512 high, const amx_layout::Sizes& z, Bf16* dst) {
  __m512 l[3], h[3];
  split3(low, &l[0], &l[1], &l[2]);
  split3(high, &h[0], &h[1], &h[2]);
  _mm512_store_si512(dst, to_bf16_pair(h[0], l[0]));
  _mm512_store_si512(dst + z.a_plane, to_bf16_pair(h[1], l[1]));
  _mm512_store_si512(dst + 2 * z.a_plane, to_bf16_pair(h[2], l[2]));
}

// Strips [s0, s1) of B -> the three planes of amx_layout. Strip s's K rows
// of 16 columns start at strip_at(s), `row_stride` floats apart. Returns
// whether every value was splittable (finite, not subnormal).
template <typename StripAt>
static bool split_b(const StripAt& strip_at, int64_t row_stride, int64_t k, int64_t s0,
                    int64_t s1, const amx_layout::Sizes& z, Bf16* planes) {
  // vpermw index: pairs (k row n, k + 1 row n) from [k row | k + 1 row].
  alignas(64) static const uint16_t kInterleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                       21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26,
                                                       11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i interleave = _mm512_load_si512(kInterleave);
  __mmask16 bad = 0;
  for (int64_t s = s0; s < s1; ++s) {
    const float* strip = strip_at(s);
    for (int64_t kk = 0; kk < z.k_padded; kk += 2) {
      const __m512 row0 = kk < k ? _mm512_loadu_ps(strip + kk * row_stride) : _mm512_setzero_ps();
      const __m512 row1 =
          kk + 1 < k ? _mm512_loadu_ps(strip + (kk + 1) * row_stride) : _mm512_setzero_ps();
      bad |= unsplittable(row0) | unsplittable(row1);
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

// The zero strip beside an odd last one (a 32-column block reads two).
static inline void zero_pad_strip(const amx_layout::Sizes& z, Bf16* planes) {
  if (z.strips_padded == z.strips) return;
  for (int t = 0; t < 3; ++t) {
    std::memset(planes + t * z.b_plane + amx_layout::b_offset(z, z.strips, 0), 0,
                sizeof(Bf16) * (z.k_padded / 2) * 32);
  }
}

// The six products of one 32 x 32 block of C over all of K, left in tiles 0-3
// (0: rows 0-15 x columns 0-15, 1: rows 0-15 x 16-31, 2 and 3: rows 16-31).
static void block_products(const Bf16* a_rows, const Bf16* b_left, const amx_layout::Sizes& z) {
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

// Tiles 0-3 -> `sums`, 32 x 32 row-major (64-byte aligned).
static inline void store_sums(float* sums) {
  _tile_stored(0, sums, 128);
  _tile_stored(1, sums + 16, 128);
  _tile_stored(2, sums + 512, 128);
  _tile_stored(3, sums + 528, 128);
}

// The split operands' scratch: B's three planes, then `slots` A panels.
struct Scratch {
  Bf16* b_planes = nullptr;
  Bf16* a_panels = nullptr;
  int64_t slots = 0;
};

// Scratch for amx_layout::workers(z, m) workers, or for as many as the temp
// allocator holds; b_planes stays null when not even one fits.
static inline Scratch allocate_scratch(KernelContext& ctx, const amx_layout::Sizes& z,
                                       int64_t m) {
  Scratch s;
  for (s.slots = amx_layout::workers(z, m); s.slots > 0; --s.slots) {
    s.b_planes = static_cast<Bf16*>(ctx.allocate_temp(amx_layout::scratch_bytes(z, s.slots), 64));
    if (s.b_planes != nullptr) break;
  }
  if (s.b_planes != nullptr) s.a_panels = s.b_planes + 3 * z.b_plane;
  return s;
}

enum class Outcome { kOk, kWeightsUnsplittable, kInputUnsplittable };

// Columns [n0, n1) (multiples of 32, n1 capped at n) of C's rows [m0, m0 +
// rows) from a split panel.
template <typename Store>
static void panel_products(const Bf16* panel, int64_t m0, int64_t rows, int64_t n0, int64_t n1,
                           int64_t n, const amx_layout::Sizes& z, const Bf16* b_planes,
                           const Store& store) {
  alignas(64) float sums[32 * 32];
  for (int64_t c = n0; c < n1 && c < n; c += 32) {
    const Bf16* b_left = b_planes + amx_layout::b_offset(z, c / 16, 0);
    for (int64_t mb = 0; mb < rows; mb += 32) {
      block_products(panel + amx_layout::a_offset(z, mb, 0), b_left, z);
      store_sums(sums);
      store(sums, m0 + mb, rows - mb < 32 ? rows - mb : 32, c);
    }
  }
}

// C[m x n] = A B by the six tile products. B's strip s (k rows of 16
// columns, row_stride floats apart) starts at strip_at(s); fill(m0, rows,
// panel) splits rows [m0, m0 + rows) of A (rows <= kPanelRows) into a
// panel, zeros up to the next multiple of 32 rows, and returns whether they
// were splittable; store(sums, m0, rows, n0) takes the 32 x 32 sums of C's rows
// [m0, m0 + rows) x columns [n0, n0 + 32). Rows are split across the
// workers (B split first, by all threads), or, for few rows
// (amx_layout::split_columns), 32-column blocks: each worker splits its own
// strips of B and every panel of A. C may be partly written when the
// outcome is not kOk, except that no C is written before the weights are
// found splittable in the row split.
template <typename StripAt, typename Fill, typename Store>
static Outcome multiply(int64_t m, int64_t n, int64_t k, const StripAt& strip_at,
                        int64_t row_stride, const amx_layout::Sizes& z, const Scratch& s,
                        const Fill& fill, const Store& store) {
  const int64_t panels = amx_layout::panel_count(m);
  std::atomic<bool> weights_finite{true}, input_finite{true};
  const auto running = [&] {
    return weights_finite.load(std::memory_order_relaxed) &&
           input_finite.load(std::memory_order_relaxed);
  };
  const auto rows_of = [&](int64_t index) {
    const int64_t m0 = index * amx_layout::kPanelRows;
    return m - m0 < amx_layout::kPanelRows ? m - m0 : amx_layout::kPanelRows;
  };
  if (!amx_layout::split_columns(m)) {
    parallel_for(0, z.strips, 1, [&](int64_t s0, int64_t s1) {
      if (!split_b(strip_at, row_stride, k, s0, s1, z, s.b_planes)) weights_finite = false;
    });
    zero_pad_strip(z, s.b_planes);
    if (!weights_finite) return Outcome::kWeightsUnsplittable;
    parallel_for_slots(0, panels, 1, s.slots, [&](int64_t begin, int64_t end, int64_t slot) {
      configure_tiles();
      Bf16* panel = s.a_panels + slot * 3 * z.a_plane;
      for (int64_t index = begin; index < end && running(); ++index) {
        const int64_t m0 = index * amx_layout::kPanelRows;
        if (!fill(m0, rows_of(index), panel)) {
          input_finite = false;
          break;
        }
        panel_products(panel, m0, rows_of(index), 0, n, n, z, s.b_planes, store);
      }
      _tile_release();
    });
    return input_finite ? Outcome::kOk : Outcome::kInputUnsplittable;
  }
  const int64_t blocks = z.strips_padded / 2;
  parallel_for_slots(0, s.slots, 1, s.slots, [&](int64_t begin, int64_t end, int64_t slot) {
    Bf16* panel = s.a_panels + slot * 3 * z.a_plane;
    configure_tiles();
    for (int64_t w = begin; w < end && running(); ++w) {
      const int64_t b0 = w * blocks / s.slots, b1 = (w + 1) * blocks / s.slots;
      const int64_t strip_end = 2 * b1 < z.strips ? 2 * b1 : z.strips;
      if (!split_b(strip_at, row_stride, k, 2 * b0, strip_end, z, s.b_planes)) {
        weights_finite = false;
        break;
      }
      if (b1 == blocks) zero_pad_strip(z, s.b_planes);
      for (int64_t index = 0; index < panels && running(); ++index) {
        const int64_t m0 = index * amx_layout::kPanelRows;
        if (!fill(m0, rows_of(index), panel)) {
          input_finite = false;
          break;
        }
        panel_products(panel, m0, rows_of(index), 32 * b0, 32 * b1, n, z, s.b_planes, store);
      }
    }
    _tile_release();
  });
  if (!weights_finite) return Outcome::kWeightsUnsplittable;
  return input_finite ? Outcome::kOk : Outcome::kInputUnsplittable;
}

// multiply() on scratch from ctx's temp allocator, as the kernel `kernel`'s
// Error: MemoryAllocationFailed (C untouched) when not even one worker's
// scratch fits, NotSupported when an operand cannot be split (C may be
// partly written: the caller recomputes it with the AVX-512 kernel).
template <typename StripAt, typename Fill, typename Store>
static Error run_product(KernelContext& ctx, const char* kernel, int64_t m, int64_t n, int64_t k,
                         const StripAt& strip_at, int64_t row_stride, const amx_layout::Sizes& z,
                         const Fill& fill, const Store& store) {
  const Scratch scratch = allocate_scratch(ctx, z, m);
  TE_CHECK_OR_RETURN(scratch.b_planes != nullptr, Error::MemoryAllocationFailed,
                     "%s: no room for %zu bytes of split operands", kernel,
                     amx_layout::scratch_bytes(z, 1));
  const Outcome outcome = multiply(m, n, k, strip_at, row_stride, z, scratch, fill, store);
  TE_CHECK_OR_RETURN(outcome != Outcome::kWeightsUnsplittable, Error::NotSupported,
                     "%s: the weights hold an infinity, NaN or subnormal", kernel);
  TE_CHECK_OR_RETURN(outcome != Outcome::kInputUnsplittable, Error::NotSupported,
                     "%s: the input holds an infinity, NaN or subnormal", kernel);
  return Error::Ok;
}

}  // namespace amx_bf16x3
}  // namespace optimized
}  // namespace torchedge
