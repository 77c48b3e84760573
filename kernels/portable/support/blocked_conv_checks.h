// torchedge/kernels/portable/support/blocked_conv_checks.h
//
// The argument checks torchedge::conv2d_blocked.out and
// conv2d_winograd_blocked.out share (python/torchedge/passes/
// conv2d_blocked_op.py defines the layout): a blocked tensor is float32
// [N, C / 16, H, W, 16], element (n, c, h, w) at [n, c / 16, h, w, c % 16].
// Each check records a message that starts with `op` (the kernel's name,
// "conv2d_blocked.out") and names the argument, and returns
// InvalidType for a wrong dtype, InvalidArgument otherwise.
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"

namespace torchedge {

constexpr int64_t kChannelBlock = 16;  // channels per blocked vector

/// Fails unless `x` is a float32 [N, C / 16, H, W, 16] (any dim order).
Error check_blocked_input(const Tensor& x, const char* op);

/// Fails unless `out_channels` is a positive multiple of 16.
Error check_blocked_out_channels(int64_t out_channels, const char* op);

/// Fails unless the input's H x W padded by (pad_h, pad_w) on both sides
/// holds a `kh` x `kw` filter (the output has at least one pixel).
Error check_padded_input(const Tensor& x, int64_t pad_h, int64_t pad_w, int64_t kh, int64_t kw,
                         const char* op);

/// Fails unless `bias` (nullptr: None) is a float32 [out_channels].
Error check_blocked_bias(const Tensor* bias, int64_t out_channels, const char* op);

/// The clamp bounds as float; fails on a NaN bound or output_min > output_max.
Error read_clamp_bounds(double output_min, double output_max, const char* op, float* lo,
                        float* hi);

/// Checks that `out` is float32, resizes it to `sizes` ([N, Cout / 16, OH,
/// OW, 16]) and fails unless it is then contiguous and apart from `x`, and
/// `residual` (nullptr: None) is a contiguous float32 of `sizes` apart from
/// `out`, or, with `out_may_be_residual`, `out` itself (the same address:
/// a kernel that reads each residual value before writing that output
/// position may write over it). Neither pointer is kept.
Error prepare_blocked_output(const Tensor& x, const Tensor* residual, Tensor& out,
                             const int64_t sizes[5], const char* op,
                             bool out_may_be_residual = false);

}  // namespace torchedge
