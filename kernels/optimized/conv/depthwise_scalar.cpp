// Depthwise convolution, baseline build (CPUs without AVX2): conv/depthwise_loops.h.
#include "kernels/optimized/conv/depthwise_loops.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

struct NoDirect {
  static bool applies(const Conv2dShape&) { return false; }
  static void plane(const Conv2dShape&, const float*, const float*, const float*, float,
                    const Conv2dClamp&, float*) {}
};

}  // namespace

Error conv2d_depthwise_scalar(KernelContext& ctx, const Conv2dShape& s, const float* x,
                              const float* w, const float* bias, float* y,
                              const Conv2dClamp& clamp) {
  return depthwise_loops::run(ctx, s, x, w, bias, y, clamp,
                              [](const Conv2dShape&, const float*, int64_t, const float*, float,
                                 const Conv2dClamp&, float*) { return false; },
                              NoDirect{});
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
