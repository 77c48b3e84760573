// The AArch64 NEON table (vec_kernels.h; built on aarch64 only, handed out
// by vec_kernels() when best_arm_isa() >= kNeon). Loops run 4 floats per
// vector, two vectors per step where the work is short; NEON has no masked
// loads, so a tail of 1-3 floats goes through a 4-float buffer and the same
// vector code (every element gets the same arithmetic as in the body).
// The transcendental functions are vec_math_neon.h's (the AVX tables'
// algorithms and constants), so GELU, softmax's exp and tanh no longer call
// libm per element on ARM.
#include <cmath>

#include "kernels/optimized/conv/simd_neon.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/optimized/vec/vec_loops.h"
#include "kernels/optimized/vec/vec_math_neon.h"

namespace torchedge {
namespace optimized {
namespace {

using V = float32x4_t;

using Loops = VecLoops<Neon>;  // vec_loops.h over conv/simd_neon.h

float sum(const float* x, int64_t n) {
  V s0 = vdupq_n_f32(0.0f), s1 = vdupq_n_f32(0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 = vaddq_f32(s0, vld1q_f32(x + i));
    s1 = vaddq_f32(s1, vld1q_f32(x + i + 4));
  }
  for (; i + 4 <= n; i += 4) s0 = vaddq_f32(s0, vld1q_f32(x + i));
  if (i < n) s1 = vaddq_f32(s1, Neon::load_tail(x + i, n - i, 0.0f));
  return vaddvq_f32(vaddq_f32(s0, s1));
}

float max(const float* x, int64_t n) {
  // fmax returns NaN when either operand is NaN, so a NaN anywhere reaches
  // the result; the lanes are checked once at the end all the same.
  const float neg_inf = -__builtin_inff();
  V m = vdupq_n_f32(neg_inf);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) m = vmaxq_f32(m, vld1q_f32(x + i));
  if (i < n) m = vmaxq_f32(m, Neon::load_tail(x + i, n - i, neg_inf));
  if (!NeonMath::all(vceqq_f32(m, m))) return __builtin_nanf("");
  return vmaxvq_f32(m);
}

// y = e^{x - m} and returns the sum of y (y may be null: sum only). The
// tail's padding is -inf, whose e^{-inf - m} is 0 for any finite m.
float exp_shifted(const float* x, float m, float* y, int64_t n) {
  // One vector per step: the exp's ~25 instructions hide the sum's latency.
  const V vm = vdupq_n_f32(m);
  V s = vdupq_n_f32(0.0f);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const V e = NeonMath::exp(vsubq_f32(vld1q_f32(x + i), vm));
    if (y != nullptr) vst1q_f32(y + i, e);
    s = vaddq_f32(s, e);
  }
  if (i < n) {
    const V e = NeonMath::exp(vsubq_f32(Neon::load_tail(x + i, n - i, -__builtin_inff()), vm));
    if (y != nullptr) Neon::store_tail(y + i, e, n - i);
    s = vaddq_f32(s, e);
  }
  return vaddvq_f32(s);
}

void softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float s = exp_shifted(x, m, y, n);
  const float inv = static_cast<float>(1.0 / static_cast<double>(s));
  Loops::binary_loop<BinaryOp::kMul, false, true>(y, &inv, 1.0f, y, n);
}

void log_softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float log_s = static_cast<float>(std::log(static_cast<double>(exp_shifted(x, m, nullptr, n))));
  // (x - m) - log_s, rounded twice as the portable kernel does.
  const V vm = vdupq_n_f32(m), vl = vdupq_n_f32(log_s);
  Loops::map(x, y, n, [vm, vl](V a) { return vsubq_f32(vsubq_f32(a, vm), vl); });
}

// Sum in double (a float sum of values near 1000 would lose the 1e-5 the
// normalized output needs), 2 + 2 lanes per step.
double sum_double(const float* x, int64_t n, int64_t* done) {
  float64x2_t s0 = vdupq_n_f64(0.0), s1 = vdupq_n_f64(0.0);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const V a = vld1q_f32(x + i);
    s0 = vaddq_f64(s0, vcvt_f64_f32(vget_low_f32(a)));
    s1 = vaddq_f64(s1, vcvt_high_f64_f32(a));
  }
  *done = i;
  return vaddvq_f64(vaddq_f64(s0, s1));
}

}  // namespace

const VecKernels& neon_vec_kernels() {
  // The elementwise entries, layer norm and row moments are vec_loops.h's
  // over Neon; the row sums and softmax rows above are this file's.
  static const VecKernels kTable = ElementwiseTable<Neon, NeonMath>::with_rows(
      sum, max, softmax_row, log_softmax_row,
      Loops::layer_norm_row<Loops::row_moments<sum_double>>, Loops::row_moments<sum_double>);
  return kTable;
}

}  // namespace optimized
}  // namespace torchedge
