// torchedge/kernels/portable/support/edge_padding.h
//
// What reflection_pad{1,2,3}d and replication_pad{1,2,3}d share: padding
// whose new elements copy an input element of the same plane (mirrored
// about the edge, or the edge itself), as ATen:
//   reflect:   out[o] = in[reflect(o - before)], reflect(p) = |p| then
//              2 (size - 1) - p past the end; each pad must be < the size.
//   replicate: out[o] = in[clamp(o - before, 0, size - 1)].
// Negative pads crop. The input is [C, *spatial] or [N, C, *spatial] with
// only N allowed empty; the output must keep every spatial dim >= 1. Real
// dtypes (eager has no bool kernel); self and out share one; any dim order.
#pragma once

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace torchedge {

enum class EdgePadMode { kReflect, kReplicate };

/// Runs `<op>(Tensor self, SymInt[2*spatial] padding, *, Tensor(a!) out)`:
/// checks the arguments (naming `op`), resizes out and pads `spatial`
/// (1 to 3) trailing dims.
Error edge_pad_out(Span<EValue*> args, int spatial, EdgePadMode mode, const char* op);

}  // namespace torchedge
