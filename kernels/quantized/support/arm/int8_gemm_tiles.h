// torchedge/kernels/quantized/support/arm/int8_gemm_tiles.h
//
// The loop the AArch64 int8 GEMMs (int8_gemm_dotprod.cpp: sdot,
// int8_gemm_i8mm.cpp: SMMLA) share: 8-column tiles over the shared thread
// pool, each task walking every 8-row block of its columns (the packed
// activations stay in cache, each weight column is read once per block).
// Include from those files only.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kInt8GemmRows = 8;  // rows per block of packed activations
constexpr int64_t kInt8GemmCols = 8;  // columns per full tile

/// full(block, n0): rows [block * 8, +8) x columns [n0, n0 + 8); last(block,
/// n0): the same for the fewer than 8 columns from n0 to p.n.
template <typename Full, typename Last>
void for_each_int8_gemm_tile(const Int8GemmProblem& p, const Full& full, const Last& last) {
  const int64_t col_tiles = (p.n + kInt8GemmCols - 1) / kInt8GemmCols;
  const int64_t blocks = (p.m + kInt8GemmRows - 1) / kInt8GemmRows;
  // ~256K multiply-adds per chunk of column tiles at least.
  const int64_t per_tile = std::max<int64_t>(1, blocks * kInt8GemmRows * kInt8GemmCols * p.k);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 18) / per_tile);
  parallel_for(0, col_tiles, grain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n0 = t * kInt8GemmCols;
      for (int64_t block = 0; block < blocks; ++block) {
        if (n0 + kInt8GemmCols <= p.n) {
          full(block, n0);
        } else {
          last(block, n0);
        }
      }
    }
  });
}

}  // namespace
}  // namespace quantized
}  // namespace torchedge
