#version 450
// Direct NCHW 2-D convolution (groups cover depthwise, 1x1 covers
// pointwise; conv1d arrives as H = 1), bias and a fused activation.
// Invocation = one output element: x over OH*OW, y over Cout, z over N.
//   p: N, Cin, H, W, Cout, OH, OW, KH, KW, stride_h, stride_w, pad_h, pad_w,
//      dil_h, dil_w, groups, has_bias, act, act_a (f32), act_b (f32)
// Weights: [Cout, Cin / groups, KH, KW].
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "activation.glsl"

void main() {
  uint Cin = p[1], H = p[2], W = p[3], Cout = p[4], OH = p[5], OW = p[6];
  uint KH = p[7], KW = p[8];
  uint pos = gl_GlobalInvocationID.x;
  if (pos >= OH * OW) return;
  uint co = gl_WorkGroupID.y;
  uint n = gl_WorkGroupID.z;
  uint oy = pos / OW;
  uint ox = pos % OW;
  uint group_in = Cin / p[15];
  uint group_out = Cout / p[15];
  uint ci0 = (co / group_out) * group_in;
  int iy0 = int(oy * p[9]) - int(p[11]);
  int ix0 = int(ox * p[10]) - int(p[12]);
  float acc = 0.0;
  for (uint ci = 0u; ci < group_in; ++ci) {
    uint in_plane = (n * Cin + ci0 + ci) * H;
    uint w_base = (co * group_in + ci) * KH * KW;
    for (uint ky = 0u; ky < KH; ++ky) {
      int iy = iy0 + int(ky * p[13]);
      if (iy < 0 || iy >= int(H)) continue;
      uint in_row = (in_plane + uint(iy)) * W;
      for (uint kx = 0u; kx < KW; ++kx) {
        int ix = ix0 + int(kx * p[14]);
        if (ix < 0 || ix >= int(W)) continue;
        acc += in0[in_row + uint(ix)] * in1[w_base + ky * KW + kx];
      }
    }
  }
  if (p[16] != 0u) acc += in2[co];
  out_data[(n * Cout + co) * OH * OW + pos] = activate(p[17], acc, pf(18), pf(19));
}
