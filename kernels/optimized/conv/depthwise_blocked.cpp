// conv2d_depthwise_blocked (conv/depthwise_blocked.h): the ISA dispatch.
#include "kernels/optimized/conv/depthwise_blocked.h"

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
  (void)s, (void)x, (void)w, (void)bias, (void)y, (void)clamp;
  return Error::NotSupported;
}

}  // namespace optimized
}  // namespace torchedge
