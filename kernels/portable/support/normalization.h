// torchedge/kernels/portable/support/normalization.h
//
// What batch_norm and layer_norm share: their affine/statistics parameters
// may be the input's dtype or, for a float16/bfloat16 input, float32 (ATen
// CPU's "mixed dtype" rule), and are read per element as double.
#pragma once

#include <cmath>
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

/// The mean and 1 / sqrt(var + eps) (biased variance) of the `count` values
/// `for_each(f)` passes to f (as double), in two passes as group norm's
/// kernels compute them; no values give mean 0 and rstd NaN, as ATen.
template <typename ForEach>
void two_pass_moments(ForEach&& for_each, double count, double eps, double* mean, double* rstd) {
  double sum = 0;
  for_each([&](double v) { sum += v; });
  const double mu = count == 0 ? 0.0 : sum / count;
  double squares = 0;
  for_each([&](double v) {
    const double d = v - mu;
    squares += d * d;
  });
  *mean = mu;
  *rstd = 1.0 / std::sqrt(squares / count + eps);
}

}  // namespace torchedge
