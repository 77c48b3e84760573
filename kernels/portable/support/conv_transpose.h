// torchedge/kernels/portable/support/conv_transpose.h
//
// The compute half of transposed convolution (convolution.out with
// transposed=True). The geometry is a ConvGeometry whose in_size/out_size
// follow the transposed relation
//   out = (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1
// and whose w_strides address the PyTorch transposed weight layout
// [in channel, out channel within group, d, h, w].
//
// Algorithm: per (image, output channel, output row), a chunk of the output
// row is accumulated in Acc on the stack: every input channel of the group
// and every kernel tap (kd, kh) that lands on this row scatters one input row
// into the chunk at stride `stride_w`. Work equals the MAC count (no tap is
// visited that does not contribute) and rounding happens once per output, so
// float16/bfloat16 match a float reference.
#pragma once

#include <cstdint>

#include "kernels/portable/support/convolution.h"

namespace torchedge {

namespace conv_detail {

/// Input index that output index `o` reads through tap `k` on one spatial
/// dim, or -1 when that tap does not land on `o`.
inline int64_t transposed_source(int64_t o, int64_t k, const ConvGeometry& g, int s) {
  const int64_t shifted = o + g.padding[s] - k * g.dilation[s];
  if (shifted < 0 || shifted % g.stride[s] != 0) return -1;
  const int64_t i = shifted / g.stride[s];
  return i < g.in_size[s] ? i : -1;
}

}  // namespace conv_detail

/// y = conv_transpose(x, w) + bias; `bias` may be null.
template <typename T>
void conv_transpose(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y) {
  using Acc = gemm::acc_t<T>;
  constexpr int64_t kChunk = 256;  // output columns per pass
  Acc row[kChunk];
  const int64_t cin_g = g.in_channels / g.groups, cout_g = g.out_channels / g.groups;
  const int64_t stride_w = g.stride[2], in_w = g.in_size[2];
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t co = 0; co < g.out_channels; ++co) {
      const int64_t grp = co / cout_g, co_local = co % cout_g;
      const T* xn = x + n * g.x_strides[0] + grp * cin_g * g.x_strides[1];
      const T* wg = w + grp * cin_g * g.w_strides[0] + co_local * g.w_strides[1];
      T* yc = y + n * g.y_strides[0] + co * g.y_strides[1];
      const Acc b = bias == nullptr ? Acc(0) : static_cast<Acc>(bias[co * g.bias_stride]);
      for (int64_t od = 0; od < g.out_size[0]; ++od) {
        for (int64_t oh = 0; oh < g.out_size[1]; ++oh) {
          for (int64_t c0 = 0; c0 < g.out_size[2]; c0 += kChunk) {
            const int64_t c1 = g.out_size[2] - c0 < kChunk ? g.out_size[2] : c0 + kChunk;
            for (int64_t i = 0; i < c1 - c0; ++i) row[i] = b;
            for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
              const int64_t id = conv_detail::transposed_source(od, kd, g, 0);
              if (id < 0) continue;
              for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                const int64_t ih = conv_detail::transposed_source(oh, kh, g, 1);
                if (ih < 0) continue;
                for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                  // Output column of input column iw: iw * stride_w + shift.
                  const int64_t shift = kw * g.dilation[2] - g.padding[2];
                  int64_t lo = c0 - shift <= 0 ? 0 : (c0 - shift + stride_w - 1) / stride_w;
                  int64_t hi = c1 - shift <= 0 ? 0 : (c1 - shift - 1) / stride_w + 1;
                  hi = hi < in_w ? hi : in_w;
                  if (lo >= hi) continue;
                  const int64_t w_tap =
                      kd * g.w_strides[2] + kh * g.w_strides[3] + kw * g.w_strides[4];
                  const int64_t x_row = id * g.x_strides[2] + ih * g.x_strides[3];
                  for (int64_t ci = 0; ci < cin_g; ++ci) {
                    const Acc wv = static_cast<Acc>(wg[ci * g.w_strides[0] + w_tap]);
                    const T* xrow = xn + ci * g.x_strides[1] + x_row;
                    for (int64_t iw = lo; iw < hi; ++iw) {
                      row[iw * stride_w + shift - c0] +=
                          wv * static_cast<Acc>(xrow[iw * g.x_strides[4]]);
                    }
                  }
                }
              }
            }
            T* yrow = yc + od * g.y_strides[2] + oh * g.y_strides[3];
            for (int64_t ow = c0; ow < c1; ++ow) {
              yrow[ow * g.y_strides[4]] = static_cast<T>(row[ow - c0]);
            }
          }
        }
      }
    }
  }
}

}  // namespace torchedge
