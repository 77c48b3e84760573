// quantize_rows_per_group (support/group_linear.h): int8 activations per
// row and per group of g values, exactly as the eager reference
// (affine4_linear.quantize_activations_per_group) computes them in float32:
//   s = amax(|x|) / 127.0, xq = clamp(round(x / (s > 0 ? s : 1)), -127, 127)
// (torch.round is nearbyint's ties-to-even; / is a float division in both).
// A group with NaN or +-inf gets s = NaN and codes 0: eager's group is NaN
// from there on (amax propagates NaN; inf / inf is NaN), so every output
// it feeds is NaN either way.
#include <cmath>
#include <limits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

void quantize_row_scalar(const float* x, int64_t k, int64_t g, int8_t* q, float* s, int32_t* sums) {
  for (int64_t j = 0; j * g < k; ++j) {
    const float* xg = x + j * g;
    float amax = 0.0f;
    bool finite = true;
    for (int64_t i = 0; i < g; ++i) {
      const float v = std::fabs(xg[i]);
      finite = finite && v < std::numeric_limits<float>::infinity();
      amax = v > amax ? v : amax;
    }
    int32_t sum = 0;
    if (!finite) {
      s[j] = std::numeric_limits<float>::quiet_NaN();
      for (int64_t i = 0; i < g; ++i) q[j * g + i] = 0;
    } else {
      s[j] = amax / 127.0f;
      const float d = s[j] > 0.0f ? s[j] : 1.0f;
      for (int64_t i = 0; i < g; ++i) {
        float r = std::nearbyint(xg[i] / d);
        r = r < -127.0f ? -127.0f : (r > 127.0f ? 127.0f : r);
        q[j * g + i] = static_cast<int8_t>(r);
        sum += static_cast<int32_t>(r);
      }
    }
    sums[j] = sum;
  }
}

}  // namespace

void quantize_rows_per_group(const float* x, int64_t m, int64_t k, int64_t group_size, int8_t* q,
                             float* s, int32_t* sums, QuantIsa isa) {
  auto row = quantize_row_scalar;
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (isa != QuantIsa::kScalar) row = quantize_row_per_group_avx2;
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  (void)isa;  // kScalar off x86: the ARM level decides
  if (group_size % 16 == 0 && optimized::best_arm_isa() >= optimized::ArmIsa::kNeon) {
    row = quantize_row_per_group_neon;
  }
#else
  (void)isa;
#endif
  if (k <= 0) return;
  const int64_t groups = k / group_size;
  // Rows are independent, so the bits do not depend on the split; a chunk
  // quantizes >= 32K values (a prefill step's hundreds of rows).
  parallel_for(0, m, (int64_t{1} << 15) / k + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      row(x + r * k, k, group_size, q + r * k, s + r * groups, sums + r * groups);
    }
  });
}

}  // namespace quantized
}  // namespace torchedge
