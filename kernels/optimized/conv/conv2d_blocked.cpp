// conv2d_blocked (conv/conv2d_blocked.h): the ISA dispatch.
#include "kernels/optimized/conv/conv2d_blocked.h"

#include "kernels/optimized/gemm/sgemm.h"

namespace torchedge {
namespace optimized {

Error conv2d_blocked(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                     const float* bias, const float* residual, float* y,
                     const Conv2dClamp& clamp) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa isa = best_isa();
  if (isa == Isa::kAvx512) {
    return detail::conv2d_blocked_avx512(ctx, s, x, w, bias, residual, y, clamp);
  }
  if (isa == Isa::kAvx2) return detail::conv2d_blocked_avx2(ctx, s, x, w, bias, residual, y, clamp);
#endif
#if defined(__aarch64__)
  if (best_arm_isa() >= ArmIsa::kNeon) {
    return detail::conv2d_blocked_neon(ctx, s, x, w, bias, residual, y, clamp);
  }
#endif
  (void)ctx, (void)s, (void)x, (void)w, (void)bias, (void)residual, (void)y, (void)clamp;
  return Error::NotSupported;
}

}  // namespace optimized
}  // namespace torchedge
