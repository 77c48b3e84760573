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

}  // namespace torchedge
