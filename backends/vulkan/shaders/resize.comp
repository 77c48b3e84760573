#version 450
// 2-D upsampling/resizing of NCHW planes, PyTorch's index rules.
//   p: planes, H, W, OH, OW, mode (0 nearest, 1 bilinear), align_corners,
//      scale_h (f32), scale_w (f32)
// scale is input / output (or 1 / scale_factor when one was given), and
// (in - 1) / (out - 1) with align_corners. Nearest: src = min(floor(dst *
// scale), in - 1). Bilinear: src = align_corners ? dst * scale :
// max((dst + 0.5) * scale - 0.5, 0), between floor(src) and the next row.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

void main() {
  uint H = p[1], W = p[2], OH = p[3], OW = p[4];
  uint i = linear_index(64u);
  if (i >= p[0] * OH * OW) return;
  uint plane = i / (OH * OW);
  uint oy = (i / OW) % OH;
  uint ox = i % OW;
  uint base = plane * H * W;
  if (p[5] == 0u) {
    uint sy = min(uint(floor(float(oy) * pf(7))), H - 1u);
    uint sx = min(uint(floor(float(ox) * pf(8))), W - 1u);
    out_data[i] = in0[base + sy * W + sx];
    return;
  }
  float fy = p[6] != 0u ? float(oy) * pf(7) : max((float(oy) + 0.5) * pf(7) - 0.5, 0.0);
  float fx = p[6] != 0u ? float(ox) * pf(8) : max((float(ox) + 0.5) * pf(8) - 0.5, 0.0);
  uint y0 = min(uint(floor(fy)), H - 1u);
  uint x0 = min(uint(floor(fx)), W - 1u);
  uint y1 = min(y0 + 1u, H - 1u);
  uint x1 = min(x0 + 1u, W - 1u);
  float ly = fy - float(y0);
  float lx = fx - float(x0);
  float top = (1.0 - lx) * in0[base + y0 * W + x0] + lx * in0[base + y0 * W + x1];
  float bottom = (1.0 - lx) * in0[base + y1 * W + x0] + lx * in0[base + y1 * W + x1];
  out_data[i] = T((1.0 - ly) * top + ly * bottom);
}
