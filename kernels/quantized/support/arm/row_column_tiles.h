// torchedge/kernels/quantized/support/arm/row_column_tiles.h
//
// The tile walk the AArch64 dot-product loops over plain [N, ...] weight
// rows share (group_linear_dotprod.cpp: linear_q4a / q8c;
// int4_linear_dotprod.cpp: linear_8da4w): output columns in blocks of 64
// (their weights stay in cache while every row tile passes), within a
// block row tiles of 4 activation rows (then 3, 2 or 1), within those
// column tiles of NR (4 for up to 2 rows, else 2: MR x NR int32 and float
// accumulators, 2 MR activation vectors and 2 NR weight vectors fit the 32
// registers), then single columns. Each output is computed by its tile
// alone, by the same instructions in every tile size, so any split of the
// columns gives the same bits.
// Include from those files only.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <type_traits>

namespace torchedge {
namespace quantized {
namespace {

template <int V>
using TileSize = std::integral_constant<int, V>;

/// tile(TileSize<MR>(), TileSize<NR>(), m0, n0) for every tile of rows
/// [0, m) x columns [n_begin, n_end) (a generic lambda: the sizes are
/// compile-time constants in it).
template <typename Tile>
void for_each_row_column_tile(const Tile& tile, int64_t m, int64_t n_begin, int64_t n_end) {
  auto columns = [&](auto rows, int64_t m0, int64_t c0, int64_t c1) {
    constexpr int MR = decltype(rows)::value;
    constexpr int NR = MR <= 2 ? 4 : 2;
    int64_t n = c0;
    for (; n + NR <= c1; n += NR) tile(rows, TileSize<NR>(), m0, n);
    for (; n < c1; ++n) tile(rows, TileSize<1>(), m0, n);
  };
  for (int64_t c0 = n_begin; c0 < n_end; c0 += 64) {
    const int64_t c1 = c0 + 64 < n_end ? c0 + 64 : n_end;
    int64_t m0 = 0;
    for (; m0 + 4 <= m; m0 += 4) columns(TileSize<4>(), m0, c0, c1);
    switch (m - m0) {
      case 3: columns(TileSize<3>(), m0, c0, c1); break;
      case 2: columns(TileSize<2>(), m0, c0, c1); break;
      case 1: columns(TileSize<1>(), m0, c0, c1); break;
      default: break;
    }
  }
}

/// 32 int8 activations at x as their even k (val[0]) and odd k (val[1]):
/// the operands of a row of 16 nibble-packed bytes' low and high nibbles.
inline int8x16x2_t even_odd_activations(const int8_t* x) { return vld2q_s8(x); }

}  // namespace
}  // namespace quantized
}  // namespace torchedge
