// torchedge/kernels/optimized/copy/glue_args.h
//
// Silent argument tests for the optimized glue kernels (where, any,
// logical_not, the copies). A kernel uses them to decide whether its fast
// path applies; when one fails it calls the portable kernel, which checks
// the arguments again and records the error message, so these never record
// anything themselves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace optimized {

inline bool is_tensor_at(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_tensor();
}

inline bool is_int_at(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->is_int();
}

inline bool is_int_list_at(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->tag() == Tag::IntList;
}

inline bool is_tensor_list_at(Span<EValue*> args, size_t i) {
  return i < args.size() && args[i] != nullptr && args[i]->tag() == Tag::TensorList;
}

/// `dim` wrapped like ATen's maybe_wrap_dim (a 0-d tensor accepts -1 and 0);
/// false when out of range.
inline bool wrap_dim(int64_t dim, int rank, int* out) {
  const int64_t bound = rank == 0 ? 1 : rank;
  if (dim < -bound || dim >= bound) return false;
  *out = static_cast<int>(dim < 0 ? dim + bound : dim);
  return true;
}

/// Whether `dims` is a permutation of 0..rank-1 (negative entries wrapped);
/// writes it into perm (rank entries).
inline bool wrap_permutation(Span<const int64_t> dims, int rank, int* perm) {
  if (dims.size() != static_cast<size_t>(rank) || rank > kTensorDimensionLimit) return false;
  bool seen[kTensorDimensionLimit] = {};
  for (int i = 0; i < rank; ++i) {
    int d;
    if (!wrap_dim(dims[i], rank, &d) || d >= rank || seen[d]) return false;
    seen[d] = true;
    perm[i] = d;
  }
  return true;
}

/// Tensor size product as int64.
inline int64_t numel_of(const Tensor& t) { return static_cast<int64_t>(t.numel()); }

}  // namespace optimized
}  // namespace torchedge
