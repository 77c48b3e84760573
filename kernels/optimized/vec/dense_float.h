// torchedge/kernels/optimized/vec/dense_float.h
//
// What the transformer op files share: the test for their fast case (a
// float32 tensor in the default dim order, so its elements are one
// contiguous row-major run) and the work sizes that make a thread worth
// starting (parallel_for runs ranges up to one grain inline).
#pragma once

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace optimized {

/// Elements per chunk for cheap elementwise loops (add, relu): ~64 KiB per
/// operand, so a chunk costs far more than waking a thread.
constexpr int64_t kElementGrain = 16384;
/// Elements per chunk for loops that evaluate exp/erf/tanh per element.
constexpr int64_t kTranscendentalGrain = 4096;

inline bool is_dense_float(const Tensor& t) {
  return t.dtype() == ScalarType::Float && t.is_contiguous();
}

inline bool is_dense_float_arg(const EValue* v) {
  return v != nullptr && v->is_tensor() && is_dense_float(v->to_tensor());
}

/// Rows per chunk so that one chunk holds about `grain` elements.
inline int64_t rows_per_chunk(int64_t row_length, int64_t grain) {
  return row_length >= grain ? 1 : (grain + row_length - 1) / (row_length > 0 ? row_length : 1);
}

}  // namespace optimized
}  // namespace torchedge
