#version 450
// Batched C[b0, b1] = act(alpha * A[b0, b1] @ B[b0, b1] + bias), tiled
// 16 x 16 through shared memory. A, B and bias are addressed by strides
// (transposed weights, broadcast batches and bias rows need no copies); C
// is contiguous [B0, B1, M, N].
//   p: M, N, K, B0, B1, a_s0, a_s1, a_m, a_k, b_s0, b_s1, b_k, b_n,
//      bias_m, bias_n, has_bias, alpha (f32), act, act_a (f32), act_b (f32)
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"
#include "activation.glsl"

shared float tile_a[16][17];
shared float tile_b[16][17];

void main() {
  uint M = p[0], N = p[1], K = p[2], B1 = p[4];
  uint batch = gl_WorkGroupID.z;
  uint b0 = batch / B1;
  uint b1 = batch % B1;
  uint row = gl_WorkGroupID.y * 16u + gl_LocalInvocationID.y;
  uint col = gl_WorkGroupID.x * 16u + gl_LocalInvocationID.x;
  uint a_base = b0 * p[5] + b1 * p[6];
  uint b_base = b0 * p[9] + b1 * p[10];
  float acc = 0.0;
  for (uint k0 = 0u; k0 < K; k0 += 16u) {
    uint ka = k0 + gl_LocalInvocationID.x;
    uint kb = k0 + gl_LocalInvocationID.y;
    tile_a[gl_LocalInvocationID.y][gl_LocalInvocationID.x] =
        (row < M && ka < K) ? in0[a_base + row * p[7] + ka * p[8]] : 0.0;
    tile_b[gl_LocalInvocationID.y][gl_LocalInvocationID.x] =
        (kb < K && col < N) ? in1[b_base + kb * p[11] + col * p[12]] : 0.0;
    barrier();
    for (uint k = 0u; k < 16u; ++k) {
      acc += tile_a[gl_LocalInvocationID.y][k] * tile_b[k][gl_LocalInvocationID.x];
    }
    barrier();
  }
  if (row >= M || col >= N) return;
  float r = pf(16) * acc;
  if (p[15] != 0u) r += in2[row * p[13] + col * p[14]];
  out_data[((b0 * B1 + b1) * M + row) * N + col] = activate(p[17], r, pf(18), pf(19));
}
