// torchedge/kernels/optimized/gemm/sgemm_amx_layout.h
//
// Where gemm/sgemm_amx.cpp keeps the split operands (shared with the
// baseline planning code in sgemm_amx_plan.cpp). All in bfloat16 bits:
//
//   B planes (3, one per term): 16-column strips (N rounded up to an even
//     number of strips: a 32-column block reads two), each K_pad / 2 rows of
//     VNNI pairs: element (k, n) at b_offset(s = n / 16, k & ~1) +
//     (n % 16) * 2 + k % 2. One 16 x 32-k tile is 512 contiguous values.
//   A panels (3 planes of kPanelRows rows): tile-major, element (i, k) at
//     a_offset(i, k / 32) + k % 32, so one 16-row x 32-k tile is 512
//     contiguous values.
// K_pad is K rounded up to 32; padding holds zeros.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace optimized {
namespace amx_layout {

using Bf16 = uint16_t;

constexpr int64_t kPanelRows = 128;  // the most rows of A split at a time (one worker's unit)

struct Sizes {
  int64_t k_padded, strips, strips_padded;
  size_t b_plane, a_plane;  // values per B plane, per A panel plane
};

inline Sizes sizes(int64_t n, int64_t k) {
  Sizes z;
  z.k_padded = (k + 31) / 32 * 32;
  z.strips = (n + 15) / 16;
  z.strips_padded = (z.strips + 1) / 2 * 2;
  z.b_plane = static_cast<size_t>(z.strips_padded * (z.k_padded / 2) * 32);
  z.a_plane = static_cast<size_t>(kPanelRows * z.k_padded);
  return z;
}

inline size_t b_offset(const Sizes& z, int64_t strip, int64_t k_even) {
  return static_cast<size_t>((strip * (z.k_padded / 2) + k_even / 2) * 32);
}

inline size_t a_offset(const Sizes& z, int64_t row, int64_t k_step) {
  return static_cast<size_t>(((row / 16) * (z.k_padded / 32) + k_step) * 512 + (row % 16) * 32);
}

inline int64_t panel_count(int64_t m) { return (m + kPanelRows - 1) / kPanelRows; }

// Whether an M-row product splits its columns across the threads instead
// of its rows: when there are fewer than two panels per thread (BERT's
// 128-token layers at 2 threads split by rows: one panel, one busy thread,
// 1.4x the SGEMM's time; ViT-S's 197 rows: panels of 128 and 69). Each
// worker then splits its own strips of B and all of A (small here).
inline bool split_columns(int64_t m) {
  const int64_t threads = static_cast<int64_t>(num_threads());
  return threads > 1 && panel_count(m) < 2 * threads;
}

// Workers (one A panel of scratch each) for an M-row product.
inline int64_t workers(const Sizes& z, int64_t m) {
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t units = split_columns(m) ? z.strips_padded / 2 : panel_count(m);
  return units < threads ? (units > 0 ? units : 1) : threads;
}

inline size_t scratch_bytes(const Sizes& z, int64_t slots) {
  return sizeof(Bf16) * (3 * z.b_plane + static_cast<size_t>(slots) * 3 * z.a_plane);
}

}  // namespace amx_layout
}  // namespace optimized
}  // namespace torchedge
