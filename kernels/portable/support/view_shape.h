// torchedge/kernels/portable/support/view_shape.h
//
// Shape arithmetic shared by the reshaping kernels (view_copy,
// _unsafe_view, et_view): turning a requested size list, which may hold
// one -1, into the concrete shape, with ATen's rules and messages.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/span.h"

namespace torchedge {

/// Writes into `out_sizes` (size.size() entries, at most
/// kTensorDimensionLimit) the shape of `numel` elements viewed as `size`.
/// At most one entry may be -1 and is inferred; it fails (InvalidArgument,
/// message recorded) for two -1s, another negative entry, a -1 next to a
/// zero-sized dim (ambiguous) or an element count that does not match.
Error infer_view_sizes(Span<const int64_t> size, int64_t numel, int64_t* out_sizes);

}  // namespace torchedge
