#version 450
// Layer norm (or RMS norm) over the last `cols` elements of each row, with
// optional elementwise weight (binding 2) and bias (binding 3).
//   p: rows, cols, eps (f32), has_weight, has_bias, rms
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

void main() {
  uint row = linear_index(64u);
  uint cols = p[1];
  if (row >= p[0]) return;
  uint base = row * cols;
  float mean = 0.0;
  if (p[5] == 0u) {
    for (uint k = 0u; k < cols; ++k) mean += in0[base + k];
    mean /= float(cols);
  }
  float var = 0.0;
  for (uint k = 0u; k < cols; ++k) {
    float d = in0[base + k] - mean;
    var += d * d;
  }
  float inv = inversesqrt(var / float(cols) + pf(2));
  for (uint k = 0u; k < cols; ++k) {
    float v = (in0[base + k] - mean) * inv;
    if (p[3] != 0u) v *= in1[k];
    if (p[4] != 0u) v += in2[k];
    out_data[base + k] = T(v);
  }
}
