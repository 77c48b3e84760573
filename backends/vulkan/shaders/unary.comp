#version 450
// out[i] = activate(op, in0[i]).  p: op, numel, a (f32), b (f32)
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common.glsl"
#include "activation.glsl"

void main() {
  uint i = linear_index(256u);
  if (i >= p[1]) return;
  out_data[i] = T(activate(p[0], in0[i], pf(2), pf(3)));
}
