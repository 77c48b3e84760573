#include "kernels/cortex_m/support/int8_depthwise_dsp.h"

#include "kernels/cortex_m/support/dsp_dot.h"
#include "kernels/cortex_m/support/requantize_inline.h"

namespace torchedge {
namespace cortex_m {
namespace {

/// Weights w[i], w[i + 1] as one int16 pair (low half first, as SMLAD pairs
/// them with two adjacent int16 activations).
inline uint32_t weight_pair(const int32_t* w, int32_t i) {
  return (static_cast<uint32_t>(w[i]) & 0xFFFFu) | (static_cast<uint32_t>(w[i + 1]) << 16);
}

/// A 3x3 tap window with dilation 1 at `base` (row stride `wp`): per row one
/// SMLAD for the first two taps, one multiply-accumulate for the third.
inline int32_t taps_3x3(const int16_t* base, int32_t wp, const uint32_t pairs[3],
                        const int32_t* w) {
#if defined(__ARM_FEATURE_DSP)
  int32_t acc = __smlad(static_cast<int16x2_t>(load_word(base)),
                        static_cast<int16x2_t>(pairs[0]), base[2] * w[2]);
  acc = __smlad(static_cast<int16x2_t>(load_word(base + wp)), static_cast<int16x2_t>(pairs[1]),
                acc + base[wp + 2] * w[5]);
  return __smlad(static_cast<int16x2_t>(load_word(base + 2 * wp)),
                 static_cast<int16x2_t>(pairs[2]), acc + base[2 * wp + 2] * w[8]);
#else
  (void)pairs;
  int32_t acc = 0;
  for (int32_t r = 0; r < 3; ++r) {
    acc += base[r * wp] * w[3 * r] + base[r * wp + 1] * w[3 * r + 1] + base[r * wp + 2] * w[3 * r + 2];
  }
  return acc;
#endif
}

}  // namespace

size_t int8_depthwise_dsp_scratch_bytes(const quantized::Int8DepthwiseProblem& p) {
  const size_t padded = static_cast<size_t>((p.height + 2 * p.pad_h) * (p.width + 2 * p.pad_w));
  // + 2: the int32 tables start 4-byte aligned after an odd count of int16.
  return padded * sizeof(int16_t) + 2 + static_cast<size_t>(p.taps()) * 2 * sizeof(int32_t);
}

void int8_depthwise_dsp(const quantized::Int8DepthwiseProblem& p, void* scratch) {
  const int32_t h = static_cast<int32_t>(p.height), w = static_cast<int32_t>(p.width);
  const int32_t ph = static_cast<int32_t>(p.pad_h), pw = static_cast<int32_t>(p.pad_w);
  const int32_t hp = h + 2 * ph, wp = w + 2 * pw;
  const int32_t oh_n = static_cast<int32_t>(p.out_height), ow_n = static_cast<int32_t>(p.out_width);
  const int32_t kw_n = static_cast<int32_t>(p.kernel_w), taps = static_cast<int32_t>(p.taps());
  const int32_t sh = static_cast<int32_t>(p.stride_h), sw = static_cast<int32_t>(p.stride_w);
  const int32_t zx = p.in_zero_point, channels = static_cast<int32_t>(p.channels);
  const bool three_by_three = p.kernel_h == 3 && p.kernel_w == 3 && p.dilation_h == 1 &&
                              p.dilation_w == 1;
  int16_t* padded = static_cast<int16_t*>(scratch);
  int32_t* offsets = reinterpret_cast<int32_t*>(padded + hp * wp + (hp * wp & 1));
  int32_t* weights = offsets + taps;
  // Tap t reads the padded plane at (oh * sh * wp + ow * sw) + offsets[t].
  for (int32_t t = 0; t < taps; ++t) {
    offsets[t] = (t / kw_n) * static_cast<int32_t>(p.dilation_h) * wp +
                 (t % kw_n) * static_cast<int32_t>(p.dilation_w);
  }
  // The border holds x == zx, i.e. 0 after the shift: written once.
  for (int32_t i = 0; i < hp * wp; ++i) padded[i] = 0;
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
    for (int32_t r = 0; r < h; ++r) {
      int16_t* dst = padded + (r + ph) * wp + pw;
      for (int32_t i = 0; i < w; ++i) dst[i] = static_cast<int16_t>(x[r * w + i] - zx);
    }
    for (int32_t t = 0; t < taps; ++t) weights[t] = p.weight[c * taps + t];
    const ChannelRequantizer requantize(rq, c);
    int8_t* out = p.out + plane * oh_n * ow_n;
    if (three_by_three) {
      const uint32_t pairs[3] = {weight_pair(weights, 0), weight_pair(weights, 3),
                                 weight_pair(weights, 6)};
      for (int32_t oh = 0; oh < oh_n; ++oh) {
        const int16_t* row = padded + oh * sh * wp;
        for (int32_t ow = 0; ow < ow_n; ++ow) {
          out[oh * ow_n + ow] = requantize(taps_3x3(row + ow * sw, wp, pairs, weights));
        }
      }
      continue;
    }
    for (int32_t oh = 0; oh < oh_n; ++oh) {
      const int16_t* row = padded + oh * sh * wp;
      for (int32_t ow = 0; ow < ow_n; ++ow) {
        const int16_t* base = row + ow * sw;
        int32_t acc = 0;
        for (int32_t t = 0; t < taps; ++t) acc += base[offsets[t]] * weights[t];
        out[oh * ow_n + ow] = requantize(acc);
      }
    }
  }
}

}  // namespace cortex_m
}  // namespace torchedge
