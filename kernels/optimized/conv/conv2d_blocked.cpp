// conv2d_blocked (conv/conv2d_blocked.h): the ISA dispatch.
#include "kernels/optimized/conv/conv2d_blocked.h"

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/vec_kernels.h"

namespace torchedge {
namespace optimized {

namespace {

// The activation of the tiles without it in their epilogue: one vectorized
// pass over y (rows of channels split across threads).
[[maybe_unused]] Error activation_after(Error err, const Conv2dShape& s, float* y,
                                        BlockedActivation activation) {
  if (err != Error::Ok || activation == BlockedActivation::kNone) return err;
  const int64_t rows = s.batch * s.out_channels / kConvBlock, row = s.out_h * s.out_w * kConvBlock;
  const VecKernels& k = active_vec_kernels();
  const auto pass = activation == BlockedActivation::kGelu ? k.gelu_erf : k.silu;
  parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
    pass(y + begin * row, y + begin * row, (end - begin) * row);
  });
  return Error::Ok;
}

}  // namespace

bool conv2d_blocked_amx_applies(const Conv2dShape& s, const float* residual, const float* y) {
  return amx_usable() && s.in_channels % kConvBlock == 0 &&
         s.out_h * s.out_w >= kConvAmxMinPixels && s.out_channels >= kConvAmxMinOutChannels &&
         s.in_channels * s.kernel_h * s.kernel_w >= kConvAmxMinK &&
         (residual == nullptr || residual != y);
}

#ifdef TORCHEDGE_NO_X86_SIMD
// Builds without the x86 SIMD units have no conv2d_blocked_amx.cpp
// (amx_usable() is false there, so conv2d_blocked never calls this).
namespace detail {
Error conv2d_blocked_amx(KernelContext& ctx, const Conv2dShape& s, const float* x,
                         const float* w, const float* bias, const float* residual, float* y,
                         const Conv2dClamp& clamp, BlockedActivation activation) {
  (void)ctx, (void)s, (void)x, (void)w, (void)bias, (void)residual, (void)y, (void)clamp,
      (void)activation;
  return Error::NotSupported;
}
}  // namespace detail
#endif

Error conv2d_blocked(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                     const float* bias, const float* residual, float* y,
                     const Conv2dClamp& clamp, BlockedActivation activation) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa isa = best_isa();
  if (isa == Isa::kAvx512) {
    if (conv2d_blocked_amx_applies(s, residual, y) &&
        detail::conv2d_blocked_amx(ctx, s, x, w, bias, residual, y, clamp, activation) == Error::Ok) {
      return Error::Ok;
    }
    return detail::conv2d_blocked_avx512(ctx, s, x, w, bias, residual, y, clamp, activation);
  }
  if (isa == Isa::kAvx2) {
    return activation_after(detail::conv2d_blocked_avx2(ctx, s, x, w, bias, residual, y, clamp),
                            s, y, activation);
  }
#endif
#if defined(__aarch64__)
  if (best_arm_isa() >= ArmIsa::kNeon) {
    return activation_after(detail::conv2d_blocked_neon(ctx, s, x, w, bias, residual, y, clamp),
                            s, y, activation);
  }
#endif
  (void)ctx, (void)s, (void)x, (void)w, (void)bias, (void)residual, (void)y, (void)clamp,
      (void)activation;
  return Error::NotSupported;
}

}  // namespace optimized
}  // namespace torchedge
