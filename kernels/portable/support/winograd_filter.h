// torchedge/kernels/portable/support/winograd_filter.h
//
// torchedge::conv2d_winograd and conv2d_winograd_blocked store each 3x3
// filter g as U = G g G^T, Winograd's F(2x2, 3x3) filter transform
// (python/torchedge/passes/conv2d_winograd_op.py, transform_filters). Their
// reference kernels recover the filter as g = H U H^T with
// H = [1 0 0 0; 0 1 -1 0; 0 0 0 1] (H G = I) and sum the direct
// convolution with it: the ops' definition, as conv2d_winograd_op.py's
// filters_from_u.
#pragma once

#include <cstdint>

namespace torchedge {

/// g (row-major [3][3]) = H U H^T, rows first, then columns, in float32:
/// point xi = 4 i + j of U at u[xi * point_stride].
inline void filter_from_u(const float* u, int64_t point_stride, float g[9]) {
  float rows[3][4];
  for (int j = 0; j < 4; ++j) {
    rows[0][j] = u[j * point_stride];
    rows[1][j] = u[(4 + j) * point_stride] - u[(8 + j) * point_stride];
    rows[2][j] = u[(12 + j) * point_stride];
  }
  for (int r = 0; r < 3; ++r) {
    g[r * 3 + 0] = rows[r][0];
    g[r * 3 + 1] = rows[r][1] - rows[r][2];
    g[r * 3 + 2] = rows[r][3];
  }
}

}  // namespace torchedge
