// torchedge/kernels/portable/support/convolution.h
//
// The compute half of convolution.out (the op file validates arguments and
// fills a ConvGeometry). Spatial dims are normalized to three (D, H, W); a
// 1-D or 2-D convolution has size-1 leading spatial dims with stride 0.
//
// Two algorithms, both scratch-free apart from small stack buffers:
//   - conv_gemm: per (image, group), a GEMM out[M = Cout/g, P = pixels] =
//     W[M, K = Cin/g * kernel volume] * im2col[K, P], where gemm.h's strip
//     packer gathers the im2col columns for kNr pixels straight from the
//     input (bounds checks skipped for strips away from the padding).
//   - conv_depthwise: for groups with one input and few output channels,
//     a direct loop whose innermost run is a contiguous span of output width.
// All tensors are addressed through element strides, so any dense dim
// order (channels-last included) works.
#pragma once

#include <cstdint>

#include "kernels/portable/support/gemm.h"

namespace torchedge {

struct ConvGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  int64_t in_size[3] = {1, 1, 1};
  int64_t out_size[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  // Element strides: [batch, channel, d, h, w] for x and y,
  // [out channel, in channel, d, h, w] for the weight.
  int64_t x_strides[5] = {0, 0, 0, 0, 0};
  int64_t w_strides[5] = {0, 0, 0, 0, 0};
  int64_t y_strides[5] = {0, 0, 0, 0, 0};
  int64_t bias_stride = 0;

  int64_t out_pixels() const { return out_size[0] * out_size[1] * out_size[2]; }
  int64_t kernel_volume() const { return kernel[0] * kernel[1] * kernel[2]; }
};

namespace conv_detail {

/// Walks the GEMM's K index in (in channel, kd, kh, kw) order.
struct KernelTap {
  int64_t c = 0, d = 0, h = 0, w = 0;
  void seek(int64_t k, const ConvGeometry& g) {
    w = k % g.kernel[2];
    k /= g.kernel[2];
    h = k % g.kernel[1];
    k /= g.kernel[1];
    d = k % g.kernel[0];
    c = k / g.kernel[0];
  }
  void next(const ConvGeometry& g) {
    if (++w < g.kernel[2]) return;
    w = 0;
    if (++h < g.kernel[1]) return;
    h = 0;
    if (++d < g.kernel[0]) return;
    d = 0;
    ++c;
  }
};

/// The kNr output pixels of one strip: where their windows start.
struct PixelStrip {
  int64_t start[3][gemm::kNr];  // first input coordinate per spatial dim
  int64_t x_off[gemm::kNr];     // input offset of `start` (may be out of range)
  int64_t y_off[gemm::kNr];     // output offset of the pixel
  bool interior = true;         // every window of the strip is in bounds

  void init(const ConvGeometry& g, int64_t p0, int64_t nr) {
    interior = true;
    for (int64_t j = 0; j < gemm::kNr; ++j) {
      int64_t p = p0 + (j < nr ? j : nr - 1);
      int64_t o[3];
      o[2] = p % g.out_size[2];
      p /= g.out_size[2];
      o[1] = p % g.out_size[1];
      o[0] = p / g.out_size[1];
      x_off[j] = 0;
      y_off[j] = 0;
      for (int s = 0; s < 3; ++s) {
        start[s][j] = o[s] * g.stride[s] - g.padding[s];
        const int64_t last = start[s][j] + (g.kernel[s] - 1) * g.dilation[s];
        interior = interior && start[s][j] >= 0 && last < g.in_size[s];
        x_off[j] += start[s][j] * g.x_strides[2 + s];
        y_off[j] += o[s] * g.y_strides[2 + s];
      }
    }
  }
};

/// Packs im2col rows k0 .. k0+kc of the strip's pixels (x: this image and
/// group's first input channel).
template <typename T, typename Acc>
void pack_im2col(const ConvGeometry& g, const T* x, const PixelStrip& s, int64_t k0, int64_t kc,
                 int64_t nr, Acc* packed) {
  KernelTap tap;
  tap.seek(k0, g);
  for (int64_t k = 0; k < kc; ++k, tap.next(g)) {
    const int64_t dd = tap.d * g.dilation[0], dh = tap.h * g.dilation[1],
                  dw = tap.w * g.dilation[2];
    const int64_t delta = tap.c * g.x_strides[1] + dd * g.x_strides[2] + dh * g.x_strides[3] +
                          dw * g.x_strides[4];
    Acc* dst = packed + k * gemm::kNr;
    if (s.interior) {
      for (int64_t j = 0; j < gemm::kNr; ++j) dst[j] = static_cast<Acc>(x[s.x_off[j] + delta]);
    } else {
      for (int64_t j = 0; j < gemm::kNr; ++j) {
        const int64_t id = s.start[0][j] + dd, ih = s.start[1][j] + dh, iw = s.start[2][j] + dw;
        const bool inside = id >= 0 && id < g.in_size[0] && ih >= 0 && ih < g.in_size[1] &&
                            iw >= 0 && iw < g.in_size[2];
        dst[j] = inside ? static_cast<Acc>(x[s.x_off[j] + delta]) : Acc(0);
      }
    }
    for (int64_t j = nr; j < gemm::kNr; ++j) dst[j] = Acc(0);
  }
}

}  // namespace conv_detail

/// Convolution as one strip-packed GEMM per (image, group); y = conv(x, w) + bias.
/// `bias` may be null. `strip` is optional partial-sum scratch of
/// (out_channels / groups) * kNr Acc (see gemm::TileSink::strip).
template <typename T>
void conv_gemm(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y,
               gemm::acc_t<T>* strip) {
  using Acc = gemm::acc_t<T>;
  const int64_t m = g.out_channels / g.groups;
  const int64_t k = g.in_channels / g.groups * g.kernel_volume();
  const int64_t pixels = g.out_pixels();
  conv_detail::PixelStrip pixel_strip;
  const auto fill_koff = [&](int64_t* koff, int64_t k0, int64_t kc) {
    conv_detail::KernelTap tap;
    tap.seek(k0, g);
    for (int64_t i = 0; i < kc; ++i, tap.next(g)) {
      koff[i] = tap.c * g.w_strides[1] + tap.d * g.w_strides[2] + tap.h * g.w_strides[3] +
                tap.w * g.w_strides[4];
    }
  };
  gemm::TileSink<T, Acc> sink;
  sink.out_row_stride = g.y_strides[1];
  sink.out_col_off = pixel_strip.y_off;
  sink.add_row_stride = g.bias_stride;
  sink.strip = strip;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* xg = x + n * g.x_strides[0] + grp * (g.in_channels / g.groups) * g.x_strides[1];
      sink.out = y + n * g.y_strides[0] + grp * m * g.y_strides[1];
      sink.addend = bias == nullptr ? nullptr : bias + grp * m * g.bias_stride;
      const auto pack = [&](Acc* packed, int64_t k0, int64_t kc, int64_t p0, int64_t nr) {
        if (k0 == 0) pixel_strip.init(g, p0, nr);
        conv_detail::pack_im2col(g, xg, pixel_strip, k0, kc, nr, packed);
      };
      gemm::gemm_by_strips<Acc>(m, pixels, k, w + grp * m * g.w_strides[0], g.w_strides[0],
                                fill_koff, pack, sink);
    }
  }
}

/// Direct convolution for groups with a single input channel (depthwise,
/// any channel multiplier), where a GEMM would have K = kernel volume only:
/// each output row accumulates, per kernel tap, a run of output width that
/// reads one input row (contiguous when stride and input W stride are 1).
template <typename T>
void conv_depthwise(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y) {
  using Acc = gemm::acc_t<T>;
  constexpr int64_t kChunk = 256;  // output columns per pass
  Acc row[kChunk];
  const int64_t multiplier = g.out_channels / g.groups;
  const int64_t sw = g.x_strides[4], stride_w = g.stride[2];
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t co = 0; co < g.out_channels; ++co) {
      const T* xc = x + n * g.x_strides[0] + (co / multiplier) * g.x_strides[1];
      const T* wc = w + co * g.w_strides[0];
      T* yc = y + n * g.y_strides[0] + co * g.y_strides[1];
      const Acc b = bias == nullptr ? Acc(0) : static_cast<Acc>(bias[co * g.bias_stride]);
      for (int64_t od = 0; od < g.out_size[0]; ++od) {
        for (int64_t oh = 0; oh < g.out_size[1]; ++oh) {
          for (int64_t c0 = 0; c0 < g.out_size[2]; c0 += kChunk) {
            const int64_t c1 = g.out_size[2] - c0 < kChunk ? g.out_size[2] : c0 + kChunk;
            for (int64_t i = 0; i < c1 - c0; ++i) row[i] = b;
            for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
              const int64_t id = od * g.stride[0] - g.padding[0] + kd * g.dilation[0];
              if (id < 0 || id >= g.in_size[0]) continue;
              for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                const int64_t ih = oh * g.stride[1] - g.padding[1] + kh * g.dilation[1];
                if (ih < 0 || ih >= g.in_size[1]) continue;
                const T* xrow = xc + id * g.x_strides[2] + ih * g.x_strides[3];
                for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                  const Acc wv = static_cast<Acc>(wc[kd * g.w_strides[2] + kh * g.w_strides[3] +
                                                     kw * g.w_strides[4]]);
                  // Output columns whose tap lands inside the row: iw in [0, W).
                  const int64_t shift = kw * g.dilation[2] - g.padding[2];
                  int64_t lo = shift >= 0 ? 0 : (-shift + stride_w - 1) / stride_w;
                  int64_t hi = g.in_size[2] - shift <= 0
                                   ? 0
                                   : (g.in_size[2] - shift - 1) / stride_w + 1;
                  lo = lo > c0 ? lo : c0;
                  hi = hi < c1 ? hi : c1;
                  if (stride_w == 1 && sw == 1) {
                    const T* xp = xrow + shift;
                    for (int64_t ow = lo; ow < hi; ++ow) {
                      row[ow - c0] += wv * static_cast<Acc>(xp[ow]);
                    }
                  } else {
                    for (int64_t ow = lo; ow < hi; ++ow) {
                      row[ow - c0] += wv * static_cast<Acc>(xrow[(ow * stride_w + shift) * sw]);
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
