// torchedge/kernels/optimized/ops/blocked_conv_operands.h
//
// The operand tests the optimized convolutions on channel-blocked
// activations share (ops/op_conv2d_blocked.cpp, op_conv2d_winograd_blocked.cpp):
// their output_min / output_max and optional bias and blocked residual.
// Anything malformed makes them return false: the op's portable kernel then
// takes the call and reports it.
#pragma once

#include <cstddef>

#include "kernels/optimized/conv/conv2d_call.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace optimized {

/// Reads the clamp (args[lo_at], args[lo_at + 1]: output_min <= output_max),
/// the bias (args[bias_at]: None or dense float32 [f->s.out_channels]) and
/// the residual (args[residual_at]: None or dense float32 [N, Cout / 16, OH,
/// OW, 16] of f->s, not overlapping args[out_at], or, with
/// `out_may_be_residual`, starting at the same address: the kernel then
/// writes its output over the residual) into `f`, whose geometry f->s must
/// be set. False when any is malformed.
bool blocked_clamp_bias_residual(Span<EValue*> args, size_t lo_at, size_t bias_at,
                                 size_t residual_at, size_t out_at, bool out_may_be_residual,
                                 Conv2dFastCall* f);

}  // namespace optimized
}  // namespace torchedge
