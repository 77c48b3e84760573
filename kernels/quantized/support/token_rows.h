// torchedge/kernels/quantized/support/token_rows.h
//
// Per-token layout: a row-major tensor [..., K] seen as rows of K elements
// (one "token" per row, as eager's *_per_token ops define it).
#pragma once

#include <cstddef>

#include "runtime/core/tensor.h"

namespace torchedge {
namespace quantized {

struct TokenRows {
  size_t rows;    // product of all but the last dimension (1 for rank 1)
  size_t length;  // size of the last dimension
};

/// `t` must have rank >= 1.
inline TokenRows token_rows(const Tensor& t) {
  size_t rows = 1;
  for (int d = 0; d + 1 < t.dim(); ++d) rows *= static_cast<size_t>(t.size(d));
  return {rows, static_cast<size_t>(t.size(-1))};
}

}  // namespace quantized
}  // namespace torchedge
