// torchedge/kernels/optimized/ops/float_operands.h
//
// The operand test the optimized kernels' fast paths share: a float32
// tensor the kernel may read as one dense array (contiguous, with data
// unless empty). Anything else goes to the portable kernel.
#pragma once

#include "runtime/core/tensor.h"

namespace torchedge {
namespace optimized {

inline bool dense_float(const Tensor& t) {
  return t.dtype() == ScalarType::Float && t.is_contiguous() && (t.numel() == 0 || t.data());
}

}  // namespace optimized
}  // namespace torchedge
