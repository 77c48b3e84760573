#include "kernels/cortex_m/support/int8_linear_dsp.h"

#include "kernels/cortex_m/support/dsp_dot.h"
#include "kernels/cortex_m/support/requantize_inline.h"

namespace torchedge {
namespace cortex_m {

void int8_linear_dsp(const quantized::Int8GemmProblem& p) {
  const int32_t k = static_cast<int32_t>(p.k), n_total = static_cast<int32_t>(p.n);
  for (int32_t m = 0; m < static_cast<int32_t>(p.m); ++m) {
    const int16_t* x = p.x + m * k;
    int8_t* out = p.out + m * n_total;
    for (int32_t n = 0; n < n_total; ++n) {
      out[n] = ChannelRequantizer(p, n)(dot_s16_s8(x, p.w + n * k, k));
    }
  }
}

}  // namespace cortex_m
}  // namespace torchedge
