#version 450
// Softmax (or log-softmax) along one dim of a tensor viewed as
// [outer, dim, inner]; one invocation per (outer, inner) row. A row that is
// entirely -inf (fully masked attention) gives zeros, as PyTorch's
// scaled_dot_product_attention does, instead of NaN.
//   p: outer, dim, inner, log
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

void main() {
  uint row = linear_index(64u);
  uint dim = p[1], inner = p[2];
  if (row >= p[0] * inner) return;
  uint base = (row / inner) * dim * inner + row % inner;
  float m = uintBitsToFloat(0xff800000u);
  for (uint k = 0u; k < dim; ++k) m = max(m, float(in0[base + k * inner]));
  if (isinf(m) && m < 0.0) {
    for (uint k = 0u; k < dim; ++k) out_data[base + k * inner] = T(0.0);
    return;
  }
  float s = 0.0;
  for (uint k = 0u; k < dim; ++k) s += exp(in0[base + k * inner] - m);
  if (p[3] != 0u) {
    float lse = m + log(s);
    for (uint k = 0u; k < dim; ++k) out_data[base + k * inner] = T(in0[base + k * inner] - lse);
  } else {
    float inv = 1.0 / s;
    for (uint k = 0u; k < dim; ++k) out_data[base + k * inner] = T(exp(in0[base + k * inner] - m) * inv);
  }
}
