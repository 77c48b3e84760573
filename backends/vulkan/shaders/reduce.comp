#version 450
// Reduction of a tensor viewed as [outer, R, inner] over R; one invocation
// per (outer, inner) output.  p: outer, R, inner, op (0 sum, 1 mean, 2 max, 3 min)
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

void main() {
  uint o = linear_index(64u);
  uint R = p[1], inner = p[2], op = p[3];
  if (o >= p[0] * inner) return;
  uint base = (o / inner) * R * inner + o % inner;
  float acc = op == 2u ? uintBitsToFloat(0xff800000u) : (op == 3u ? uintBitsToFloat(0x7f800000u) : 0.0);
  for (uint k = 0u; k < R; ++k) {
    float v = in0[base + k * inner];
    acc = op == 2u ? max(acc, v) : (op == 3u ? min(acc, v) : acc + v);
  }
  if (op == 1u) acc /= float(R);
  out_data[o] = T(acc);
}
