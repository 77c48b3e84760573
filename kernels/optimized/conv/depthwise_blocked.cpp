// conv2d_depthwise_blocked (conv/depthwise_blocked.h): the ISA dispatch.
#include "kernels/optimized/conv/depthwise_blocked.h"

#include <cstddef>

#include "kernels/optimized/conv/blocked_layout.h"
#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/cpu/cpu_features.h"

namespace torchedge {
namespace optimized {

Error conv2d_depthwise_blocked(const DepthwiseBlockedShape& s, const float* x, const float* w,
                               const float* bias, float* y, const Conv2dClamp& clamp) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa isa = best_isa();
  if (isa == Isa::kAvx512) return detail::conv2d_depthwise_blocked_avx512(s, x, w, bias, y, clamp);
  if (isa == Isa::kAvx2) return detail::conv2d_depthwise_blocked_avx2(s, x, w, bias, y, clamp);
#endif
#if defined(__aarch64__)
  if (best_arm_isa() >= ArmIsa::kNeon) {
    return detail::conv2d_depthwise_blocked_neon(s, x, w, bias, y, clamp);
  }
#endif
  (void)s, (void)x, (void)w, (void)bias, (void)y, (void)clamp;
  return Error::NotSupported;
}

Error conv2d_depthwise_through_blocked(KernelContext& ctx, const Conv2dShape& s, const float* x,
                                       const float* w, const float* bias, float* y,
                                       const Conv2dClamp& clamp) {
  if (s.in_channels % kConvBlock != 0 || s.out_channels != s.in_channels ||
      s.groups != s.in_channels || s.dilation_h != 1 || s.dilation_w != 1 ||
      !has_simd()) {
    return Error::NotSupported;
  }
  const int64_t blocks = s.in_channels / kConvBlock, taps = s.kernel_h * s.kernel_w;
  const int64_t in_pixels = s.in_h * s.in_w, out_pixels = s.out_h * s.out_w;
  const size_t in_floats = static_cast<size_t>(s.batch * s.in_channels * in_pixels);
  const size_t out_floats = static_cast<size_t>(s.batch * s.out_channels * out_pixels);
  float* xb = static_cast<float*>(ctx.allocate_temp(sizeof(float) * in_floats, 64));
  float* yb = static_cast<float*>(ctx.allocate_temp(sizeof(float) * out_floats, 64));
  float* wb = static_cast<float*>(
      ctx.allocate_temp(sizeof(float) * static_cast<size_t>(s.in_channels * taps), 64));
  if (xb == nullptr || yb == nullptr || wb == nullptr) return Error::MemoryAllocationFailed;
  // [C, 1, KH, KW] -> [C / 16, KH, KW, 16]
  for (int64_t c = 0; c < s.in_channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) {
      wb[((c / kConvBlock) * taps + t) * kConvBlock + c % kConvBlock] = w[c * taps + t];
    }
  }
  nchw_to_blocked(x, s.batch, s.in_channels, in_pixels, xb);
  const DepthwiseBlockedShape bs{s.batch,    blocks,     s.in_h,     s.in_w,
                                 s.out_h,    s.out_w,    s.kernel_h, s.kernel_w,
                                 s.stride_h, s.stride_w, s.pad_h,    s.pad_w};
  const Error err = conv2d_depthwise_blocked(bs, xb, wb, bias, yb, clamp);
  if (err != Error::Ok) return err;
  blocked_to_nchw(yb, s.batch, s.out_channels, out_pixels, y);
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
