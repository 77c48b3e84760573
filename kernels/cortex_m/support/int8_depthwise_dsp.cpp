#include "kernels/cortex_m/support/int8_depthwise_dsp.h"

#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace cortex_m {

void int8_depthwise_dsp(const quantized::Int8DepthwiseProblem& p, int32_t* acc) {
  const int32_t h = static_cast<int32_t>(p.height), w = static_cast<int32_t>(p.width);
  const int32_t oh_n = static_cast<int32_t>(p.out_height), ow_n = static_cast<int32_t>(p.out_width);
  const int32_t kh_n = static_cast<int32_t>(p.kernel_h), kw_n = static_cast<int32_t>(p.kernel_w);
  const int32_t sh = static_cast<int32_t>(p.stride_h), sw = static_cast<int32_t>(p.stride_w);
  const int32_t ph = static_cast<int32_t>(p.pad_h), pw = static_cast<int32_t>(p.pad_w);
  const int32_t dh = static_cast<int32_t>(p.dilation_h), dw = static_cast<int32_t>(p.dilation_w);
  const int32_t zx = p.in_zero_point, channels = static_cast<int32_t>(p.channels);
  quantized::Int8GemmProblem rq{};
  rq.w_scales = p.w_scales;
  rq.bias = p.bias;
  rq.in_scale = p.in_scale;
  rq.inv_out_scale = p.inv_out_scale;
  rq.out_zero_point = p.out_zero_point;
  rq.quant_min = p.quant_min;
  rq.quant_max = p.quant_max;
  for (int32_t plane = 0; plane < static_cast<int32_t>(p.planes()); ++plane) {
    const int32_t c = plane % channels;
    const int8_t* x = p.input + plane * h * w;
    const int8_t* wt = p.weight + c * kh_n * kw_n;
    int8_t* out = p.out + plane * oh_n * ow_n;
    for (int32_t oh = 0; oh < oh_n; ++oh) {
      for (int32_t i = 0; i < ow_n; ++i) acc[i] = 0;
      for (int32_t kh = 0; kh < kh_n; ++kh) {
        const int32_t ih = oh * sh - ph + kh * dh;
        if (ih < 0 || ih >= h) continue;
        const int8_t* row = x + ih * w;
        for (int32_t kw = 0; kw < kw_n; ++kw) {
          const int32_t tap = wt[kh * kw_n + kw];
          const int32_t shift = kw * dw - pw;  // iw = ow * sw + shift
          int32_t lo = 0, hi = ow_n;
          while (lo < hi && lo * sw + shift < 0) ++lo;
          while (hi > lo && (hi - 1) * sw + shift >= w) --hi;
          const int8_t* in = row + lo * sw + shift;
          for (int32_t i = lo; i < hi; ++i, in += sw) acc[i] += (*in - zx) * tap;
        }
      }
      int8_t* dst = out + oh * ow_n;
      for (int32_t i = 0; i < ow_n; ++i) dst[i] = quantized::requantize(acc[i], rq, c);
    }
  }
}

}  // namespace cortex_m
}  // namespace torchedge
