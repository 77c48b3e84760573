#version 450
// 2-D pooling over NCHW planes. x over OH*OW, y over planes (N*C).
//   p: planes, H, W, OH, OW, KH, KW, stride_h, stride_w, pad_h, pad_w,
//      dil_h, dil_w, mode, count_include_pad, divisor_override
//   mode: 0 max, 1 average (window from the parameters), 2 adaptive
//   average, 3 adaptive max (window [floor(o*H/OH), ceil((o+1)*H/OH)))
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

void main() {
  uint H = p[1], W = p[2], OH = p[3], OW = p[4];
  uint pos = gl_GlobalInvocationID.x;
  if (pos >= OH * OW) return;
  uint plane = gl_WorkGroupID.y;
  uint oy = pos / OW;
  uint ox = pos % OW;
  uint mode = p[13];
  int y0, y1, x0, x1, dy, dx;
  if (mode >= 2u) {
    y0 = int((oy * H) / OH);
    y1 = int(((oy + 1u) * H + OH - 1u) / OH);
    x0 = int((ox * W) / OW);
    x1 = int(((ox + 1u) * W + OW - 1u) / OW);
    dy = 1;
    dx = 1;
  } else {
    dy = int(p[11]);
    dx = int(p[12]);
    y0 = int(oy * p[7]) - int(p[9]);
    x0 = int(ox * p[8]) - int(p[10]);
    y1 = y0 + (int(p[5]) - 1) * dy + 1;
    x1 = x0 + (int(p[6]) - 1) * dx + 1;
  }
  bool is_max = mode == 0u || mode == 3u;
  float acc = is_max ? uintBitsToFloat(0xff800000u) : 0.0;  // -inf for max
  uint count = 0u;
  uint padded = 0u;
  uint base = plane * H * W;
  for (int y = y0; y < y1; y += dy) {
    for (int x = x0; x < x1; x += dx) {
      // Average pooling counts padded positions only inside the padded
      // input (PyTorch clips the window at H + pad).
      bool inside = y >= 0 && y < int(H) && x >= 0 && x < int(W);
      if (!inside) {
        if (y < int(H + p[9]) && x < int(W + p[10])) ++padded;
        continue;
      }
      float v = in0[base + uint(y) * W + uint(x)];
      acc = is_max ? max(acc, v) : acc + v;
      ++count;
    }
  }
  if (!is_max) {
    float divisor = float(count);
    if (mode == 1u && p[14] != 0u) divisor = float(count + padded);
    if (mode == 1u && p[15] != 0u) divisor = float(p[15]);
    acc /= divisor;
  }
  out_data[plane * OH * OW + pos] = T(acc);
}
