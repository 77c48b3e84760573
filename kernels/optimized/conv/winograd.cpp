// Which convolutions take the Winograd path (conv/winograd.h). Baseline
// code: conv2d_gemm asks before entering the AVX2 build.
#include "kernels/optimized/conv/winograd.h"

#include <cstdlib>
#include <cstring>

#include "kernels/optimized/cpu/cpu_features.h"

namespace torchedge {
namespace optimized {
namespace detail {

bool winograd_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("TORCHEDGE_WINOGRAD");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return on;
}

bool winograd_applies(const Conv2dShape& s) {
#ifdef TORCHEDGE_NO_X86_SIMD
  (void)s;
  return false;
#else
  return s.kernel_h == 3 && s.kernel_w == 3 && s.stride_h == 1 && s.stride_w == 1 &&
         s.dilation_h == 1 && s.dilation_w == 1 && s.groups == 1 && s.in_channels >= 8 &&
         s.out_channels >= 8 && s.out_h >= 8 && s.out_w >= 8 &&
         s.in_channels * s.out_channels <= 65536 &&
         static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2) && winograd_enabled();
#endif
}

bool winograd_pretransformed_available() {
#ifdef TORCHEDGE_NO_X86_SIMD
  return false;
#else
  return static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2) && winograd_enabled();
#endif
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
