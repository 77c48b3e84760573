// NEON loops of the int8 activation quantizers of the 4-bit linears:
// quantize_row_int8_per_token (support/activation_quant.h; rows that are
// all finite, the caller runs the scalar loops otherwise: NaN / inf follow
// eager's NaN-propagating min, max and clamp, which fmin / fmax do not) and
// quantize_rows_per_group's row loop (support/group_quant.cpp; a group with
// NaN or +-inf gets s = NaN and codes 0, as the scalar loop), the AArch64
// counterparts of support/x86/activation_quant_avx2.cpp and
// group_quant_avx2.cpp. On finite inputs each step is exact
// or rounds as the scalar code does: min and max are exact, x / scale is
// one float division (vdivq_f32), vrndnq_f32 is torch.round's ties-to-even,
// and the + zp, clamp and conversion act on small integers. Baseline NEON
// (every AArch64 CPU); no a * b + c here, so no FMA can be formed.
#include <arm_neon.h>

#include <limits>

#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

// 16 values: clamp(round(x / d) + zp, lo, hi) as int8 (the bounds within
// [-128, 127], so the narrowing keeps every value); their sum into *sum.
inline int8x16_t quantize16(const float* x, float32x4_t d, float32x4_t zp, float32x4_t lo,
                            float32x4_t hi, int32x4_t* sum) {
  int32x4_t v[4];
  for (int j = 0; j < 4; ++j) {
    const float32x4_t r = vrndnq_f32(vdivq_f32(vld1q_f32(x + 4 * j), d));
    v[j] = vcvtq_s32_f32(vminq_f32(vmaxq_f32(vaddq_f32(r, zp), lo), hi));
    *sum = vaddq_s32(*sum, v[j]);
  }
  const int16x8_t a = vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1]));
  const int16x8_t b = vcombine_s16(vmovn_s32(v[2]), vmovn_s32(v[3]));
  return vcombine_s8(vmovn_s16(a), vmovn_s16(b));
}

}  // namespace

bool finite_min_max_neon(const float* x, size_t count, float* min_out, float* max_out) {
  const float32x4_t inf = vdupq_n_f32(__builtin_inff());
  float32x4_t lo = vdupq_n_f32(x[0]), hi = lo;
  uint32x4_t finite = vdupq_n_u32(~0u);
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    finite = vandq_u32(finite, vcltq_f32(vabsq_f32(v), inf));  // false for NaN and +-inf
    lo = vminq_f32(lo, v);
    hi = vmaxq_f32(hi, v);
  }
  if (vminvq_u32(finite) == 0) return false;
  float mn = vminvq_f32(lo), mx = vmaxvq_f32(hi);
  for (; i < count; ++i) {
    if (!(__builtin_fabsf(x[i]) < __builtin_inff())) return false;
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *min_out = mn;
  *max_out = mx;
  return true;
}

void quantize_row_neon(const float* x, int64_t k, int64_t group_size, float scale, float zero_point,
                       int8_t* q, int32_t* group_sums) {
  const float32x4_t s = vdupq_n_f32(scale), zp = vdupq_n_f32(zero_point);
  const float32x4_t qmin = vdupq_n_f32(-128.0f), qmax = vdupq_n_f32(127.0f);
  for (int64_t g0 = 0, gi = 0; g0 < k; g0 += group_size, ++gi) {
    int32x4_t sum = vdupq_n_s32(0);
    for (int64_t i = g0; i < g0 + group_size; i += 16) {
      vst1q_s8(q + i, quantize16(x + i, s, zp, qmin, qmax, &sum));
    }
    group_sums[gi] = vaddvq_s32(sum);
  }
}

void quantize_row_per_group_neon(const float* x, int64_t k, int64_t group_size, int8_t* q,
                                 float* s, int32_t* sums) {
  const float32x4_t inf = vdupq_n_f32(std::numeric_limits<float>::infinity());
  const float32x4_t lo = vdupq_n_f32(-127.0f), hi = vdupq_n_f32(127.0f), zero = vdupq_n_f32(0.0f);
  for (int64_t g0 = 0, j = 0; g0 < k; g0 += group_size, ++j) {
    float32x4_t amax = zero;
    uint32x4_t finite = vdupq_n_u32(~0u);
    for (int64_t i = g0; i < g0 + group_size; i += 4) {
      const float32x4_t a = vabsq_f32(vld1q_f32(x + i));
      finite = vandq_u32(finite, vcltq_f32(a, inf));  // false for NaN and +-inf
      amax = vmaxq_f32(amax, a);
    }
    if (vminvq_u32(finite) == 0) {
      s[j] = std::numeric_limits<float>::quiet_NaN();
      sums[j] = 0;
      for (int64_t i = g0; i < g0 + group_size; i += 16) vst1q_s8(q + i, vdupq_n_s8(0));
      continue;
    }
    const float sj = vmaxvq_f32(amax) / 127.0f;
    s[j] = sj;
    const float32x4_t d = vdupq_n_f32(sj > 0.0f ? sj : 1.0f);
    int32x4_t sum = vdupq_n_s32(0);
    for (int64_t i = g0; i < g0 + group_size; i += 16) {
      vst1q_s8(q + i, quantize16(x + i, d, zero, lo, hi, &sum));
    }
    sums[j] = vaddvq_s32(sum);
  }
}

}  // namespace quantized
}  // namespace torchedge
