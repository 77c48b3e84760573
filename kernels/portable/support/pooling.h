// torchedge/kernels/portable/support/pooling.h
//
// What max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d share:
// reading their int[2] window arguments, ATen's output-size rule, and a
// walk over every output element of a 3-d [C, H, W] or 4-d [N, C, H, W]
// input (any dim order: offsets come from strides).
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// Sizes and element strides of a pooling input or output, as 4-d
/// [N, C, H, W] (a 3-d tensor has N = 1, stride 0).
struct PoolPlanes {
  int64_t batch = 1, channels = 1, height = 1, width = 1;
  int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;

  int64_t at(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return n * stride_n + c * stride_c + h * stride_h + w * stride_w;
  }
};

/// Validates a 3-d or 4-d input (non-empty except for the batch dim) and
/// views it as PoolPlanes.
Error pool_input_planes(const Tensor& in, const char* op, PoolPlanes* planes);

/// The output shape: in's leading dims and [out_h, out_w]; returns the rank.
size_t pool_output_sizes(const Tensor& in, int64_t out_h, int64_t out_w, int64_t* sizes);

/// The PoolPlanes view of a 3-d or 4-d tensor (an output: after resizing).
PoolPlanes pool_planes(const Tensor& t);

/// Reads an int[2] window argument: 1 value (both dims) or 2. An empty list
/// takes `fallback` (stride=[] means the kernel size). Values < `min` fail.
Error read_pool_pair(Span<EValue*> args, size_t index, const char* name, const int64_t* fallback,
                     int64_t min, const char* op, int64_t* pair);

/// A 2-d max pool's window (kernel_size, stride, padding, dilation: each
/// [h, w]).
struct MaxPoolWindow {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
};

/// The input rows [h0, h_end) and columns [w0, w_end) (dilation apart; also
/// stop at the input's size) that output pixel (oh, ow)'s window covers,
/// h0 / w0 moved past the leading padding onto the first tap inside.
struct PoolWindowTaps {
  int64_t h0, h_end, w0, w_end;
};
inline PoolWindowTaps pool_window_taps(const MaxPoolWindow& w, int64_t oh, int64_t ow) {
  PoolWindowTaps t;
  t.h0 = oh * w.stride[0] - w.padding[0];
  t.w0 = ow * w.stride[1] - w.padding[1];
  t.h_end = t.h0 + (w.kernel[0] - 1) * w.dilation[0] + 1;
  t.w_end = t.w0 + (w.kernel[1] - 1) * w.dilation[1] + 1;
  while (t.h0 < 0) t.h0 += w.dilation[0];
  while (t.w0 < 0) t.w0 += w.dilation[1];
  return t;
}

/// Reads arguments 1-4 of max_pool2d's schema (kernel_size, stride (empty:
/// the kernel size), padding, dilation) with read_pool_pair's checks.
Error read_max_pool_window(Span<EValue*> args, const char* op, MaxPoolWindow* w);

/// ATen's pooling_output_shape for one spatial dim; fails (naming `op`) on
/// padding over half the dilated kernel or a non-positive output size.
Error pool_output_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                       bool ceil_mode, const char* op, int64_t* out);

/// Calls f(n, c, oh, ow) for every element of an output shaped `out`.
template <typename F>
void for_each_pool_output(const PoolPlanes& out, F&& f) {
  for (int64_t n = 0; n < out.batch; ++n) {
    for (int64_t c = 0; c < out.channels; ++c) {
      for (int64_t oh = 0; oh < out.height; ++oh) {
        for (int64_t ow = 0; ow < out.width; ++ow) f(n, c, oh, ow);
      }
    }
  }
}

}  // namespace torchedge
