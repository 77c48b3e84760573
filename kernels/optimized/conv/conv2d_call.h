// torchedge/kernels/optimized/conv/conv2d_call.h
//
// The boxed-argument side of the optimized 2-D convolutions, shared by
// aten::convolution.out (ops/op_convolution.cpp), torchedge::conv2d_clamp.out
// and torchedge::conv2d_add_clamp.out (ops/op_conv2d_clamp.cpp): all read
// input, weight, bias, stride, padding, dilation, groups and out, at
// positions given by a Conv2dArgs, and run the same fast path (conv/conv2d.h).
#pragma once

#include <cstddef>

#include "kernels/optimized/conv/conv2d.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace optimized {

// What an op's fast-path test hands its kernel (the ops on pre-transformed
// or packed filters, ops/op_conv2d_winograd.cpp and op_conv2d_blocked.cpp,
// read their own argument lists): the geometry, the clamp, and the bias and
// residual (or null).
struct Conv2dFastCall {
  Conv2dShape s;
  Conv2dClamp clamp;
  const float* bias = nullptr;
  const float* residual = nullptr;
};

// Positions of a convolution's arguments in its boxed argument list.
struct Conv2dArgs {
  size_t input, weight, bias, stride, padding, dilation, groups, out;
};

/// Fills `*s` with the geometry of the call and returns true when the fast
/// path takes it: float32, 4-d (or 3-d: a 1-d convolution, taken as H = 1)
/// contiguous input and weight, bias null or a dense float32 [Cout], stride /
/// padding / dilation lists of 1 or 2 valid values (exactly 1 for 3-d), groups dividing both channel counts, a kernel that fits the
/// padded input. False otherwise (including malformed arguments: the caller's
/// portable kernel then reports the error). `args.size()` must exceed every
/// index of `at`; `s` must not be null.
bool conv2d_fast_shape(Span<EValue*> args, const Conv2dArgs& at, Conv2dShape* s);

/// Runs a call conv2d_fast_shape accepted (`s` is its geometry): resizes out,
/// then the depthwise loops or the GEMM, adding `residual` (null, or dense
/// float32 of out's shape, not overlapping out: the caller checks) and
/// applying `clamp`. Sets `*declined`
/// (and returns Ok, out possibly resized but not written) when the portable
/// kernel must take the call after all: out not contiguous, a shape the
/// depthwise loops do not take, scratch too short. `declined` must not be
/// null.
Error run_conv2d_fast(KernelContext& ctx, Span<EValue*> args, const Conv2dArgs& at,
                      const Conv2dShape& s, const Conv2dClamp& clamp, const float* residual,
                      bool* declined);

}  // namespace optimized
}  // namespace torchedge
