#version 450
// out = a (op) b with numpy broadcasting over up to 6 dims (leading dims
// padded with 1). Strides of a broadcast dim are 0.
//   p: op, numel, alpha (f32), dims[6], a_strides[6], b_strides[6],
//      c_strides[6]
//   op: 0 add (a + alpha b), 1 sub (a - alpha b), 2 mul, 3 div,
//       4 maximum, 5 minimum, 6 pow, 7 where (c != 0 ? a : b; the third
//       operand, binding 3, is a 0/1 mask)
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common.glsl"

void main() {
  uint i = linear_index(256u);
  if (i >= p[1]) return;
  uint rest = i;
  uint ia = 0u;
  uint ib = 0u;
  uint ic = 0u;
  for (int d = 5; d >= 0; --d) {
    uint size = p[3 + d];
    uint c = rest % size;
    rest /= size;
    ia += c * p[9 + d];
    ib += c * p[15 + d];
    ic += c * p[21 + d];
  }
  CT a = CT(in0[ia]);
  CT b = CT(in1[ib]);
  CT r;
  switch (p[0]) {
    // alpha * b in float32 (alpha need not be a float16 value), rounded once.
    case 0u: r = CT(float(a) + pf(2) * float(b)); break;
    case 1u: r = CT(float(a) - pf(2) * float(b)); break;
    case 2u: r = a * b; break;
    case 3u: r = a / b; break;
    case 4u: r = max(a, b); break;
    case 5u: r = min(a, b); break;
    case 6u: r = CT(pow(float(a), float(b))); break;  // float16 pow loses digits
    default: r = float(in2[ic]) != 0.0 ? a : b; break;
  }
  out_data[i] = T(r);
}
