// torchedge/kernels/portable/support/pooling3d.h
//
// What avg_pool3d and max_pool3d_with_indices share beyond pooling.h's
// output-size rule: reading their int[3] window arguments and the output
// shape of a [C, D, H, W] or [N, C, D, H, W] input. Inputs are viewed as
// SpatialView (spatial_view.h), so any dim order works.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// A 3-d pooling window (D, H, W order).
struct Window3d {
  int64_t kernel[3], stride[3], padding[3], dilation[3] = {1, 1, 1};
};

/// Reads an int[3] window argument: 1 value (every dim) or 3. An empty list
/// takes `fallback` (stride=[] means the kernel size). Values < `min` fail.
Error read_pool_triple(Span<EValue*> args, size_t index, const char* name,
                       const int64_t* fallback, int64_t min, const char* op, int64_t* triple);

/// Validates a 4-d or 5-d input (only the batch dim may be empty), computes
/// the output's D, H, W with ATen's rule (pool_output_size) and writes the
/// output shape into `sizes` (in's leading dims, then D, H, W) and its
/// rank into `rank`.
Error pool3d_output_shape(const Tensor& in, const Window3d& w, bool ceil_mode, const char* op,
                          int64_t* sizes, size_t* rank);

}  // namespace torchedge
