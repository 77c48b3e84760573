// torchedge/kernels/optimized/conv/conv2d_blocked_tile_avx2.h
//
// conv2d_blocked's AVX2 micro-kernel: the ISA-generic block tile
// (conv2d_blocked_tile.h) on AVX2's vectors, 6 pixels x 16 channels in two
// ymm halves. Compiled with -mavx2 -mfma; entered when best_isa() is kAvx2
// (AVX-512 hosts take conv2d_blocked_avx512.cpp).
//
// Include ONLY from AVX2 translation units (conv2d_blocked_avx2.cpp,
// winograd_blocked_avx2.cpp).
#pragma once

#include "kernels/optimized/conv/simd_avx2.h"
#include "kernels/optimized/conv/conv2d_blocked_tile.h"

namespace torchedge {
namespace optimized {
namespace {

using Avx2Tile = BlockTile<Avx2, 6>;

}  // namespace
}  // namespace optimized
}  // namespace torchedge
