#include "kernels/cortex_m/support/int8_conv_dsp.h"

#include "kernels/cortex_m/support/dsp_dot.h"
#include "kernels/cortex_m/support/requantize_inline.h"

namespace torchedge {
namespace cortex_m {

size_t int8_conv_dsp_scratch_bytes(const quantized::Int8ConvProblem& p) {
  // The patch only: the per-channel factor is one multiply per output where
  // it is used (a 64-channel table of factors and biases would be 512 bytes
  // of scratch, the largest item in the DS-CNN's RAM after the arena).
  return static_cast<size_t>(p.k_quads()) * 4 * sizeof(int16_t);
}

namespace {

// Where element k of the receptive field goes: pair order (dsp_dot.h,
// dot6_panel_pairs), k = 4q + j stored at 4q + {0, 2, 1, 3}[j].
inline int32_t pair_slot(int32_t k) { return (k & ~3) | ((k & 1) << 1) | ((k >> 1) & 1); }

// The receptive field of output pixel (oh, ow) of one group's planes, in pair order.
// 32-bit indices: the firmware's maps are far below 2^31 elements.
void gather_patch(const quantized::Int8ConvProblem& p, const int8_t* image, int32_t oh,
                  int32_t ow, int16_t* patch) {
  const int32_t h = static_cast<int32_t>(p.height), w = static_cast<int32_t>(p.width);
  const int32_t kh_n = static_cast<int32_t>(p.kernel_h), kw_n = static_cast<int32_t>(p.kernel_w);
  const int32_t ih0 = oh * static_cast<int32_t>(p.stride_h) - static_cast<int32_t>(p.pad_h);
  const int32_t iw0 = ow * static_cast<int32_t>(p.stride_w) - static_cast<int32_t>(p.pad_w);
  const int32_t dh = static_cast<int32_t>(p.dilation_h), dw = static_cast<int32_t>(p.dilation_w);
  const int32_t zx = p.in_zero_point;
  int32_t k = 0;
  for (int32_t c = 0; c < static_cast<int32_t>(p.cin_g()); ++c) {
    const int8_t* plane = image + c * h * w;
    for (int32_t kh = 0; kh < kh_n; ++kh) {
      const int32_t ih = ih0 + kh * dh;
      const bool row_in = ih >= 0 && ih < h;
      for (int32_t kw = 0; kw < kw_n; ++kw, ++k) {
        const int32_t iw = iw0 + kw * dw;
        patch[pair_slot(k)] =
            row_in && iw >= 0 && iw < w ? static_cast<int16_t>(plane[ih * w + iw] - zx) : 0;
      }
    }
  }
  for (const int32_t kq = static_cast<int32_t>(p.k_quads()) * 4; k < kq; ++k) patch[pair_slot(k)] = 0;
}

// The same for a 1x1, stride-1, unpadded convolution (the pointwise
// layers): the field is one pixel of every input plane.
void gather_pixel(const quantized::Int8ConvProblem& p, const int8_t* image, int32_t pixel,
                  int16_t* patch) {
  const int32_t plane = static_cast<int32_t>(p.height * p.width), zx = p.in_zero_point;
  const int32_t cin_g = static_cast<int32_t>(p.cin_g());
  const int8_t* x = image + pixel;
  int32_t c = 0;
  for (; c + 4 <= cin_g; c += 4, x += 4 * plane, patch += 4) {
    patch[0] = static_cast<int16_t>(x[0] - zx);
    patch[1] = static_cast<int16_t>(x[2 * plane] - zx);
    patch[2] = static_cast<int16_t>(x[plane] - zx);
    patch[3] = static_cast<int16_t>(x[3 * plane] - zx);
  }
  if (c < cin_g) {
    int16_t tail[4] = {0, 0, 0, 0};
    for (int32_t j = 0; c + j < cin_g; ++j) tail[j] = static_cast<int16_t>(x[j * plane] - zx);
    patch[0] = tail[0];
    patch[1] = tail[2];
    patch[2] = tail[1];
    patch[3] = tail[3];
  }
}

bool is_pointwise(const quantized::Int8ConvProblem& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_h == 0 && p.pad_w == 0;
}

}  // namespace

bool int8_conv_dsp_in_place_ok(const quantized::Int8ConvProblem& p) {
  return is_pointwise(p) && p.cin_g() == p.cout_g();
}

void int8_conv_dsp(const quantized::Int8ConvProblem& p, int16_t* patch) {
  const int32_t cin_g = static_cast<int32_t>(p.cin_g()), cout_g = static_cast<int32_t>(p.cout_g());
  const int32_t quads = static_cast<int32_t>(p.k_quads());
  const int32_t pixels = static_cast<int32_t>(p.pixels()), out_w = static_cast<int32_t>(p.out_width);
  const int32_t panel_bytes = static_cast<int32_t>(p.panel_bytes());
  constexpr int32_t kRows = static_cast<int32_t>(quantized::kInt8ConvPanelRows);
  const bool pointwise = is_pointwise(p);
  const OutputQuant oq{p.inv_out_scale, p.out_zero_point, p.quant_min, p.quant_max,
                       p.bias != nullptr};
  for (int32_t n = 0; n < static_cast<int32_t>(p.batch); ++n) {
    for (int32_t g = 0; g < static_cast<int32_t>(p.groups); ++g) {
      const int8_t* image = p.input + (n * p.in_channels + g * cin_g) * p.height * p.width;
      const int8_t* weight = p.weight + g * p.panels() * panel_bytes;
      const float* w_scales = p.w_scales + g * cout_g;
      const float* bias = p.bias != nullptr ? p.bias + g * cout_g : nullptr;
      int8_t* out = p.out + (n * p.out_channels + g * cout_g) * pixels;
      for (int32_t pixel = 0; pixel < pixels; ++pixel) {
        if (pointwise) {
          gather_pixel(p, image, pixel, patch);
        } else {
          gather_patch(p, image, pixel / out_w, pixel % out_w, patch);
        }
        // One weight panel (six output channels) per pass over the field.
        // Panels are padded with zero rows up to 6: rows past Cout_g are
        // computed and not stored.
        for (int32_t m = 0; m < cout_g; m += kRows) {
          int32_t acc[kRows];
          dot6_panel_pairs(patch, weight + (m / kRows) * panel_bytes, quads, acc);
          int8_t* dst = out + m * pixels + pixel;
          const int32_t rows = cout_g - m < kRows ? cout_g - m : kRows;
          for (int32_t i = 0; i < rows; ++i, dst += pixels) {
            // requantize()'s factor: the same float product as a table would hold.
            *dst = requantize_scaled(acc[i], p.in_scale * w_scales[m + i],
                                     bias != nullptr ? bias[m + i] : 0.0f, oq);
          }
        }
      }
    }
  }
}

}  // namespace cortex_m
}  // namespace torchedge
