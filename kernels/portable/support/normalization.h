// torchedge/kernels/portable/support/normalization.h
//
// What batch_norm and layer_norm share: their affine/statistics parameters
// may be the input's dtype or, for a float16/bfloat16 input, float32 (ATen
// CPU's "mixed dtype" rule), and are read per element as double.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Checks an optional parameter (null passes): dtype per the rule above and
/// exactly `numel` elements. `op` and `name` go into the message.
Error check_norm_param(const Tensor* param, ScalarType input_dtype, int64_t numel, const char* op,
                       const char* name);

/// Element `offset` (in elements) of a floating tensor, as double.
double load_as_double(const Tensor& t, int64_t offset);

/// Stores `v` rounded to a floating tensor's dtype at element `offset`.
void store_from_double(Tensor& t, int64_t offset, double v);

}  // namespace torchedge
