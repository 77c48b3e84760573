// torchedge/kernels/portable/support/dim_list.h
//
// Validation of dim-list arguments: `int[] dims` (permute, flip, squeeze),
// every entry normalized against the rank like ATen's maybe_wrap_dim with
// duplicates rejected where ATen rejects them, and the `dim_order` of the
// dim-order ops.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Writes the normalized `dims` into `out` (dims.size() entries, at most
/// kTensorDimensionLimit). Fails with InvalidArgument, naming `what`, for an
/// out-of-range dim, too many dims, or (unless `allow_duplicates`) a dim
/// that appears twice.
Error normalize_dim_list(Span<const int64_t> dims, int rank, bool allow_duplicates,
                         const char* what, int* out);

/// For the dim-order ops' `int[]? dim_order` argument: fails with
/// InvalidArgument unless `dim_order` equals `out`'s dim order (the layout
/// the program planned for the result). Call it only when the argument was
/// given.
Error expect_out_dim_order(Span<const int64_t> dim_order, const Tensor& out);

}  // namespace torchedge
