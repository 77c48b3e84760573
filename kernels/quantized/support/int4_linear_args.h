// torchedge/kernels/quantized/support/int4_linear_args.h
//
// Argument validation shared by torchedge::linear_int4_weight_only.out and
// torchedge::linear_8da4w.out (same schema):
//   (Tensor input, Tensor packed_weight, Tensor scales, Tensor? zero_points,
//    int group_size, Tensor? bias, *, Tensor(a!) out)
// input float32 [..., K] (row-major), packed_weight uint8 [N, K/2], scales
// float32 [N, K/g], zero_points int8 [N, K/g] or None, group_size in
// {32, 64, 128, 256} with K % g == 0, bias float32 [N] or None, out float32
// (resized to [..., N]).
#pragma once

#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {

struct Int4LinearCall {
  const float* x;  // [M, K]
  int64_t m;
  Int4Weight weight;
  const float* bias;  // [N] or nullptr
  float* out;         // [M, N]
};

Result<Int4LinearCall> parse_int4_linear_args(Span<EValue*> args, const char* op);

}  // namespace quantized
}  // namespace torchedge
