// torchedge/kernels/quantized/support/channel_params.h
//
// Validation and reading of per-channel / per-token / per-group
// quantization parameters (`scales`, `zero_points` tensors).
//
// The compute type follows eager's type promotion: scales of float32 keep
// the arithmetic in float32, float64 scales (what choose_qparams_* return)
// move it to float64. Zero points may be any integer dtype or a floating
// dtype no wider than the scales (float64 zero points with float32 scales
// would promote differently; they are rejected with a clear error).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace quantized {

/// Checks scales (float32/float64, `expected` elements) and zero_points
/// (nullable; `expected` elements, integer or floating dtype as above).
/// `what` names the parameter layout in messages ("channels of axis 1").
Error check_param_tensors(const Tensor& scales, const Tensor* zero_points, size_t expected,
                          const char* what, const char* op);

/// True when the arithmetic runs in float64 (scales are float64).
inline bool params_in_double(const Tensor& scales) { return scales.dtype() == ScalarType::Double; }

/// Calls f(c, offset, count) for every run of `count` consecutive memory
/// elements that belong to channel c of dimension `axis` (dense tensors).
template <typename F>
void for_each_channel_run(const Tensor& t, int axis, F&& f) {
  if (t.numel() == 0) return;
  const size_t channels = static_cast<size_t>(t.size(axis));
  const size_t run = static_cast<size_t>(t.stride(axis));
  const size_t outer = t.numel() / (channels * run);
  for (size_t c = 0; c < channels; ++c) {
    for (size_t a = 0; a < outer; ++a) f(c, (a * channels + c) * run, run);
  }
}

/// The integer dtype eager computes `input - zero_points` in: the promotion
/// of both (a 0-dim zero point does not promote an integer input).
ScalarType integer_difference_dtype(ScalarType input, const Tensor& zero_points);

/// True when q - zp can leave `diff_dtype`'s range for some q of `input`
/// dtype, so the difference must be wrapped as eager's integer op does.
bool difference_may_wrap(ScalarType input, int64_t zero_point, ScalarType diff_dtype);

/// Two's-complement wrap of v into `t` (an integer dtype).
int64_t wrap_to(int64_t v, ScalarType t);

}  // namespace quantized
}  // namespace torchedge
