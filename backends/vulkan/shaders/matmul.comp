#version 450
// Batched C[b0, b1] = act(alpha * A[b0, b1] @ B[b0, b1] + bias). A, B and
// bias are addressed by strides (transposed weights, broadcast batches and
// bias rows need no copies); C is contiguous [B0, B1, M, N].
//   p: M, N, K, B0, B1, a_s0, a_s1, a_m, a_k, b_s0, b_s1, b_k, b_n,
//      bias_m, bias_n, has_bias, alpha (f32), act, act_a (f32), act_b (f32)
// Each invocation computes a 4 x 4 block of C in registers: no shared
// memory and no barriers, which a CPU implementation (lavapipe) runs far
// faster than a shared-memory tiling, and a GPU serves from its caches.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 8, local_size_y = 8) in;
#include "common.glsl"
#include "activation.glsl"

void main() {
  uint M = p[0], N = p[1], K = p[2], B1 = p[4];
  uint batch = gl_WorkGroupID.z;
  uint b0 = batch / B1;
  uint b1 = batch % B1;
  uint row0 = gl_GlobalInvocationID.y * 4u;
  uint col0 = gl_GlobalInvocationID.x * 4u;
  if (row0 >= M || col0 >= N) return;
  uint a_base = b0 * p[5] + b1 * p[6];
  uint b_base = b0 * p[9] + b1 * p[10];
  uint a_m = p[7], a_k = p[8], b_k = p[11], b_n = p[12];
  // Rows/cols past the edge re-read the last valid one (results dropped).
  // Named scalars, not arrays: a CPU implementation (lavapipe) turns
  // dynamically indexed local arrays into per-lane memory.
  uint r0 = a_base + min(row0, M - 1u) * a_m, r1 = a_base + min(row0 + 1u, M - 1u) * a_m;
  uint r2 = a_base + min(row0 + 2u, M - 1u) * a_m, r3 = a_base + min(row0 + 3u, M - 1u) * a_m;
  uint c0 = b_base + min(col0, N - 1u) * b_n, c1 = b_base + min(col0 + 1u, N - 1u) * b_n;
  uint c2 = b_base + min(col0 + 2u, N - 1u) * b_n, c3 = b_base + min(col0 + 3u, N - 1u) * b_n;
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  for (uint k = 0u; k < K; ++k) {
    uint ak = k * a_k;
    uint bk = k * b_k;
    vec4 bv = vec4(in1[c0 + bk], in1[c1 + bk], in1[c2 + bk], in1[c3 + bk]);
    acc0 += in0[r0 + ak] * bv;
    acc1 += in0[r1 + ak] * bv;
    acc2 += in0[r2 + ak] * bv;
    acc3 += in0[r3 + ak] * bv;
  }
  vec4 acc[4] = vec4[4](acc0, acc1, acc2, acc3);
  uint out_base = (b0 * B1 + b1) * M * N;
  for (uint i = 0u; i < 4u; ++i) {
    uint row = row0 + i;
    if (row >= M) break;
    for (uint j = 0u; j < 4u; ++j) {
      uint col = col0 + j;
      if (col >= N) break;
      float v = pf(16) * acc[i][j];
      if (p[15] != 0u) v += in2[row * p[13] + col * p[14]];
      out_data[out_base + row * N + col] = T(activate(p[17], v, pf(18), pf(19)));
    }
  }
}
