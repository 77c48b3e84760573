#version 450
// Direct NCHW 2-D convolution (groups cover depthwise, 1x1 covers
// pointwise; conv1d arrives as H = 1), bias and a fused activation.
//   p: N, Cin, H, W, Cout, OH, OW, KH, KW, stride_h, stride_w, pad_h, pad_w,
//      dil_h, dil_w, groups, has_bias, act, act_a (f32), act_b (f32)
// Weights: [Cout, Cin / groups, KH, KW].
//
// Each invocation computes 4 adjacent outputs of a row for CB output
// channels (CB = 4 when the group's output channels come in fours, else
// 1): every input value loaded serves CB channels, every weight 4 outputs.
// x: (Cout / CB) * OH * ceil(OW / 4) invocations (channel block major, so
// that workgroups stay full on small late layers; folded into y past the
// device's x limit), z: N.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "activation.glsl"

void main() {
  uint Cin = p[1], H = p[2], W = p[3], Cout = p[4], OH = p[5], OW = p[6];
  uint KH = p[7], KW = p[8], SW = p[10], DH = p[13], DW = p[14];
  uint group_in = Cin / p[15];
  uint group_out = Cout / p[15];
  uint CB = (group_out % 4u == 0u) ? 4u : 1u;
  uint blocks_w = (OW + 3u) / 4u;
  uint blocks = OH * blocks_w;
  uint index = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
  if (index >= (Cout / CB) * blocks) return;
  uint pos = index % blocks;
  uint oy = pos / blocks_w;
  uint ox0 = (pos % blocks_w) * 4u;
  uint co0 = (index / blocks) * CB;
  uint n = gl_WorkGroupID.z;
  uint ci0 = (co0 / group_out) * group_in;
  int iy0 = int(oy * p[9]) - int(p[11]);
  int ix0 = int(ox0 * SW) - int(p[12]);
  // Four named accumulators and unrolled loads: a CPU implementation
  // (lavapipe) turns dynamically indexed local arrays into per-lane memory.
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  uint w_step = group_in * KH * KW;  // from one output channel's weights to the next
  for (uint ci = 0u; ci < group_in; ++ci) {
    uint in_plane = (n * Cin + ci0 + ci) * H;
    for (uint ky = 0u; ky < KH; ++ky) {
      int iy = iy0 + int(ky * DH);
      if (iy < 0 || iy >= int(H)) continue;
      uint in_row = (in_plane + uint(iy)) * W;
      uint w_at = ((co0 * group_in + ci) * KH + ky) * KW;
      for (uint kx = 0u; kx < KW; ++kx) {
        int ix = ix0 + int(kx * DW);
        vec4 iv = vec4(
            (ix >= 0 && ix < int(W)) ? in0[in_row + uint(ix)] : 0.0,
            (ix + int(SW) >= 0 && ix + int(SW) < int(W)) ? in0[in_row + uint(ix + int(SW))] : 0.0,
            (ix + int(2u * SW) >= 0 && ix + int(2u * SW) < int(W)) ? in0[in_row + uint(ix + int(2u * SW))] : 0.0,
            (ix + int(3u * SW) >= 0 && ix + int(3u * SW) < int(W)) ? in0[in_row + uint(ix + int(3u * SW))] : 0.0);
        acc0 += in1[w_at + kx] * iv;
        if (CB == 4u) {
          acc1 += in1[w_at + w_step + kx] * iv;
          acc2 += in1[w_at + 2u * w_step + kx] * iv;
          acc3 += in1[w_at + 3u * w_step + kx] * iv;
        }
      }
    }
  }
  vec4 accs[4] = vec4[4](acc0, acc1, acc2, acc3);
  for (uint j = 0u; j < CB; ++j) {
    uint co = co0 + j;
    float bias = p[16] != 0u ? float(in2[co]) : 0.0;
    uint out_row = ((n * Cout + co) * OH + oy) * OW;
    for (uint q = 0u; q < 4u; ++q) {
      if (ox0 + q < OW) out_data[out_row + ox0 + q] = T(activate(p[17], accs[j][q] + bias, pf(18), pf(19)));
    }
  }
}
