#version 450
// Strided copy: out[out_offset + sum c_d out_strides_d] =
//               in[in_offset + sum c_d in_strides_d] over dims[6].
// One shader for permute, transpose, expand, slice, select, concat (one
// dispatch per input), reshape of non-contiguous values and clone.
//   p: numel, dims[6], in_strides[6], in_offset, out_strides[6], out_offset
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common.glsl"

void main() {
  uint i = linear_index(256u);
  if (i >= p[0]) return;
  uint rest = i;
  uint src = p[13];
  uint dst = p[20];
  for (int d = 5; d >= 0; --d) {
    uint size = p[1 + d];
    uint c = rest % size;
    rest /= size;
    src += c * p[7 + d];
    dst += c * p[14 + d];
  }
  out_data[dst] = in0[src];
}
