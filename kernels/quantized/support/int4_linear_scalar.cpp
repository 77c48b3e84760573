// Portable inner loops of the 4-bit linear kernels (any CPU); also the
// reference the SIMD paths are tested against.
#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {

void int4_linear_f32_scalar(const FloatRows& x, const Int4Weight& w, const float* bias,
                            float* out, int64_t n_begin, int64_t n_end) {
  const int64_t k = w.k, g = w.group_size, groups = k / g;
  for (int64_t n = n_begin; n < n_end; ++n) {
    const uint8_t* row = w.packed + n * (k / 2);
    for (int64_t m = 0; m < x.m; ++m) {
      const float* xr = x.x + m * k;
      float acc = 0.0f;
      for (int64_t gi = 0; gi < groups; ++gi) {
        float dot = 0.0f;
        for (int64_t kk = gi * g; kk < (gi + 1) * g; ++kk) {
          dot += xr[kk] * static_cast<float>(unpack_int4(row, kk));
        }
        if (w.zero_points != nullptr) {
          dot -= static_cast<float>(w.zero_points[n * groups + gi]) * x.group_sums[m * groups + gi];
        }
        acc += w.scales[n * groups + gi] * dot;
      }
      out[m * w.n + n] = acc + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

void int8_int4_linear_scalar(const Int8Rows& x, const Int4Weight& w, const float* bias,
                             float* out, int64_t n_begin, int64_t n_end) {
  const int64_t k = w.k, g = w.group_size, groups = k / g;
  for (int64_t n = n_begin; n < n_end; ++n) {
    const uint8_t* row = w.packed + n * (k / 2);
    for (int64_t m = 0; m < x.m; ++m) {
      const int8_t* xr = x.q + m * k;
      const int32_t xzp = x.zero_points[m];
      float acc = 0.0f;
      for (int64_t gi = 0; gi < groups; ++gi) {
        const int32_t wzp = w.zero_points != nullptr ? w.zero_points[n * groups + gi] : 0;
        int32_t dot = 0;  // |dot| <= 256 * 255 * 135: fits int32
        for (int64_t kk = gi * g; kk < (gi + 1) * g; ++kk) {
          dot += (static_cast<int32_t>(xr[kk]) - xzp) * (unpack_int4(row, kk) - wzp);
        }
        acc += w.scales[n * groups + gi] * static_cast<float>(dot);
      }
      out[m * w.n + n] = x.scales[m] * acc + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
