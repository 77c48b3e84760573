// torchedge/kernels/portable/support/index_values.h
//
// Reading index tensors (index_select, gather, index.Tensor): indices are
// int64 or int32 tensors; values are read as int64 and range-checked once,
// before any output is written, so a bad index fails cleanly.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Whether `t` is a dtype that indices may have (int64, int32).
inline bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

/// The element at `offset` (in elements) of an int64 or int32 tensor.
inline int64_t load_index(const Tensor& index, int64_t offset) {
  return index.dtype() == ScalarType::Long ? index.data_as<int64_t>()[offset]
                                           : index.data_as<int32_t>()[offset];
}

/// Fails with InvalidArgument, naming `what`, unless every value of `index`
/// lies in [0, size), or in [-size, size) when `allow_negative`. `index`
/// must have an index dtype.
Error check_index_range(const Tensor& index, int64_t size, bool allow_negative,
                        const char* what);

}  // namespace torchedge
