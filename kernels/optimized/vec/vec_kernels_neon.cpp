// The AArch64 NEON table (vec_kernels.h; built on aarch64 only, handed out
// by vec_kernels() when best_arm_isa() >= kNeon). Loops run 4 floats per
// vector, two vectors per step where the work is short; NEON has no masked
// loads, so a tail of 1-3 floats goes through a 4-float buffer and the same
// vector code (every element gets the same arithmetic as in the body).
// The transcendental functions are vec_math_neon.h's (the AVX tables'
// algorithms and constants), so GELU, softmax's exp and tanh no longer call
// libm per element on ARM.
#include <cmath>
#include <cstring>

#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/optimized/vec/vec_math_neon.h"

namespace torchedge {
namespace optimized {
namespace {

namespace v = vec_neon;
using V = float32x4_t;

/// Loads the first `n` (0 < n < 4) floats of p; the other lanes get `fill`.
inline V load_tail(const float* p, int64_t n, float fill) {
  float buf[4] = {fill, fill, fill, fill};
  std::memcpy(buf, p, sizeof(float) * static_cast<size_t>(n));
  return vld1q_f32(buf);
}

/// Stores the first `n` (0 < n < 4) lanes of v to p.
inline void store_tail(float* p, V v, int64_t n) {
  float buf[4];
  vst1q_f32(buf, v);
  std::memcpy(p, buf, sizeof(float) * static_cast<size_t>(n));
}

template <typename F>
inline void map(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {  // two independent vectors per step hide the latency
    const V a = f(vld1q_f32(x + i));
    const V b = f(vld1q_f32(x + i + 4));
    vst1q_f32(y + i, a);
    vst1q_f32(y + i + 4, b);
  }
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, f(vld1q_f32(x + i)));
  if (i < n) store_tail(y + i, f(load_tail(x + i, n - i, 0.0f)), n - i);
}

void exp_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](V a) { return v::exp(a); }); }
void tanh_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](V a) { return v::tanh(a); }); }
void erf_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](V a) { return v::erf(a); }); }
void gelu_erf_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](V a) { return v::gelu_erf(a); });
}

// x/2 (1 + tanh(u)) = x / (1 + e^{-2u}): one exp, no cancellation for x < 0.
void gelu_tanh_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](V a) {
    const V cube = vmulq_f32(vmulq_f32(a, a), a);
    const V inner = vfmaq_f32(a, vdupq_n_f32(vec_math::kGeluTanhCubic), cube);
    const V e = v::exp(vmulq_f32(vdupq_n_f32(-2.0f * vec_math::kGeluTanhBeta), inner));
    return vdivq_f32(a, vaddq_f32(vdupq_n_f32(1.0f), e));
  });
}

void sigmoid_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](V a) { return v::sigmoid(a); });
}
void silu_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](V a) { return vdivq_f32(a, vaddq_f32(vdupq_n_f32(1.0f), v::exp(vnegq_f32(a)))); });
}
void relu_loop(const float* x, float* y, int64_t n) {
  // Only lanes strictly below zero become 0, so NaN and -0 pass through.
  map(x, y, n, [](V a) { return vbslq_f32(vcltzq_f32(a), vdupq_n_f32(0.0f), a); });
}

template <BinaryOp kOp>
inline V apply(V a, V b, V alpha, bool scaled) {
  if constexpr (kOp == BinaryOp::kAdd) return vaddq_f32(a, scaled ? vmulq_f32(alpha, b) : b);
  if constexpr (kOp == BinaryOp::kSub) return vsubq_f32(a, scaled ? vmulq_f32(alpha, b) : b);
  if constexpr (kOp == BinaryOp::kMul) return vmulq_f32(a, b);
  return vdivq_f32(a, b);
}

template <BinaryOp kOp, bool kAScalar, bool kBScalar>
void binary_loop(const float* a, const float* b, float alpha, float* y, int64_t n) {
  const V va = vdupq_n_f32(a[0]), vb = vdupq_n_f32(b[0]), valpha = vdupq_n_f32(alpha);
  const bool scaled = alpha != 1.0f;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const V a0 = kAScalar ? va : vld1q_f32(a + i), a1 = kAScalar ? va : vld1q_f32(a + i + 4);
    const V b0 = kBScalar ? vb : vld1q_f32(b + i), b1 = kBScalar ? vb : vld1q_f32(b + i + 4);
    vst1q_f32(y + i, apply<kOp>(a0, b0, valpha, scaled));
    vst1q_f32(y + i + 4, apply<kOp>(a1, b1, valpha, scaled));
  }
  for (; i + 4 <= n; i += 4) {
    const V xa = kAScalar ? va : vld1q_f32(a + i);
    const V xb = kBScalar ? vb : vld1q_f32(b + i);
    vst1q_f32(y + i, apply<kOp>(xa, xb, valpha, scaled));
  }
  if (i < n) {
    // The padding lanes (1 / 1) are never stored.
    const V xa = kAScalar ? va : load_tail(a + i, n - i, 1.0f);
    const V xb = kBScalar ? vb : load_tail(b + i, n - i, 1.0f);
    store_tail(y + i, apply<kOp>(xa, xb, valpha, scaled), n - i);
  }
}

template <BinaryOp kOp>
void binary_for(const float* a, bool a_scalar, const float* b, bool b_scalar, float alpha,
                float* y, int64_t n) {
  if (a_scalar && b_scalar) return binary_loop<kOp, true, true>(a, b, alpha, y, n);
  if (a_scalar) return binary_loop<kOp, true, false>(a, b, alpha, y, n);
  if (b_scalar) return binary_loop<kOp, false, true>(a, b, alpha, y, n);
  return binary_loop<kOp, false, false>(a, b, alpha, y, n);
}

void binary(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
            float alpha, float* y, int64_t n) {
  switch (op) {
    case BinaryOp::kAdd: return binary_for<BinaryOp::kAdd>(a, a_scalar, b, b_scalar, alpha, y, n);
    case BinaryOp::kSub: return binary_for<BinaryOp::kSub>(a, a_scalar, b, b_scalar, alpha, y, n);
    case BinaryOp::kMul: return binary_for<BinaryOp::kMul>(a, a_scalar, b, b_scalar, alpha, y, n);
    case BinaryOp::kDiv: return binary_for<BinaryOp::kDiv>(a, a_scalar, b, b_scalar, alpha, y, n);
  }
}

float sum(const float* x, int64_t n) {
  V s0 = vdupq_n_f32(0.0f), s1 = vdupq_n_f32(0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 = vaddq_f32(s0, vld1q_f32(x + i));
    s1 = vaddq_f32(s1, vld1q_f32(x + i + 4));
  }
  for (; i + 4 <= n; i += 4) s0 = vaddq_f32(s0, vld1q_f32(x + i));
  if (i < n) s1 = vaddq_f32(s1, load_tail(x + i, n - i, 0.0f));
  return vaddvq_f32(vaddq_f32(s0, s1));
}

float max(const float* x, int64_t n) {
  // fmax returns NaN when either operand is NaN, so a NaN anywhere reaches
  // the result; the lanes are checked once at the end all the same.
  const float neg_inf = -__builtin_inff();
  V m = vdupq_n_f32(neg_inf);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) m = vmaxq_f32(m, vld1q_f32(x + i));
  if (i < n) m = vmaxq_f32(m, load_tail(x + i, n - i, neg_inf));
  if (!v::all(vceqq_f32(m, m))) return __builtin_nanf("");
  return vmaxvq_f32(m);
}

// y = e^{x - m} and returns the sum of y (y may be null: sum only). The
// tail's padding is -inf, whose e^{-inf - m} is 0 for any finite m.
float exp_shifted(const float* x, float m, float* y, int64_t n) {
  const V vm = vdupq_n_f32(m);
  V s0 = vdupq_n_f32(0.0f), s1 = vdupq_n_f32(0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const V a = v::exp(vsubq_f32(vld1q_f32(x + i), vm));
    const V b = v::exp(vsubq_f32(vld1q_f32(x + i + 4), vm));
    if (y != nullptr) {
      vst1q_f32(y + i, a);
      vst1q_f32(y + i + 4, b);
    }
    s0 = vaddq_f32(s0, a);
    s1 = vaddq_f32(s1, b);
  }
  for (; i + 4 <= n; i += 4) {
    const V a = v::exp(vsubq_f32(vld1q_f32(x + i), vm));
    if (y != nullptr) vst1q_f32(y + i, a);
    s0 = vaddq_f32(s0, a);
  }
  if (i < n) {
    const V a = v::exp(vsubq_f32(load_tail(x + i, n - i, -__builtin_inff()), vm));
    if (y != nullptr) store_tail(y + i, a, n - i);
    s1 = vaddq_f32(s1, a);
  }
  return vaddvq_f32(vaddq_f32(s0, s1));
}

void softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float s = exp_shifted(x, m, y, n);
  const float inv = static_cast<float>(1.0 / static_cast<double>(s));
  binary_loop<BinaryOp::kMul, false, true>(y, &inv, 1.0f, y, n);
}

void log_softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float log_s = static_cast<float>(std::log(static_cast<double>(exp_shifted(x, m, nullptr, n))));
  // (x - m) - log_s, rounded twice as the portable kernel does.
  const V vm = vdupq_n_f32(m), vl = vdupq_n_f32(log_s);
  map(x, y, n, [vm, vl](V a) { return vsubq_f32(vsubq_f32(a, vm), vl); });
}

// Sum in double (a float sum of values near 1000 would lose the 1e-5 the
// normalized output needs), 2 + 2 lanes per step.
double sum_double(const float* x, int64_t n) {
  float64x2_t s0 = vdupq_n_f64(0.0), s1 = vdupq_n_f64(0.0);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const V a = vld1q_f32(x + i);
    s0 = vaddq_f64(s0, vcvt_f64_f32(vget_low_f32(a)));
    s1 = vaddq_f64(s1, vcvt_high_f64_f32(a));
  }
  double s = vaddvq_f64(vaddq_f64(s0, s1));
  for (; i < n; ++i) s += x[i];
  return s;
}

void row_moments(const float* x, int64_t n, double eps, double* mean, double* rstd) {
  const double mu = sum_double(x, n) / static_cast<double>(n);
  const float m = static_cast<float>(mu);
  // Centered second pass in float around float(mu), as the AVX tables.
  const V vm = vdupq_n_f32(m);
  V q0 = vdupq_n_f32(0.0f), q1 = vdupq_n_f32(0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const V d0 = vsubq_f32(vld1q_f32(x + i), vm);
    const V d1 = vsubq_f32(vld1q_f32(x + i + 4), vm);
    q0 = vfmaq_f32(q0, d0, d0);
    q1 = vfmaq_f32(q1, d1, d1);
  }
  for (; i + 4 <= n; i += 4) {
    const V d = vsubq_f32(vld1q_f32(x + i), vm);
    q0 = vfmaq_f32(q0, d, d);
  }
  double squares = vaddvq_f32(vaddq_f32(q0, q1));
  for (; i < n; ++i) squares += (static_cast<double>(x[i]) - m) * (static_cast<double>(x[i]) - m);
  *mean = mu;
  *rstd = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
}

void layer_norm_row(const float* x, const float* w, const float* b, double eps, int64_t n,
                    float* y, float* mean, float* rstd) {
  double mu, inv;
  row_moments(x, n, eps, &mu, &inv);
  const float m = static_cast<float>(mu), r = static_cast<float>(inv);
  const V vm = vdupq_n_f32(m), vr = vdupq_n_f32(r);
  auto affine = [&](V a, int64_t at, int64_t count) {
    V t = vmulq_f32(vsubq_f32(a, vm), vr);
    if (w != nullptr) t = vmulq_f32(t, count == 4 ? vld1q_f32(w + at) : load_tail(w + at, count, 0.0f));
    if (b != nullptr) t = vaddq_f32(t, count == 4 ? vld1q_f32(b + at) : load_tail(b + at, count, 0.0f));
    return t;
  };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, affine(vld1q_f32(x + i), i, 4));
  if (i < n) store_tail(y + i, affine(load_tail(x + i, n - i, 0.0f), i, n - i), n - i);
  *mean = m;
  *rstd = r;
}

void scale_shift(const float* x, float scale, float shift, float* y, int64_t n) {
  const V a = vdupq_n_f32(scale), c = vdupq_n_f32(shift);
  map(x, y, n, [a, c](V t) { return vfmaq_f32(c, t, a); });
}

}  // namespace

const VecKernels& neon_vec_kernels() {
  static const VecKernels kTable = {exp_loop,       tanh_loop,       erf_loop,     gelu_erf_loop,
                                    gelu_tanh_loop, sigmoid_loop,    silu_loop,    relu_loop,
                                    binary,         sum,             max,          softmax_row,
                                    log_softmax_row, layer_norm_row, row_moments, scale_shift};
  return kTable;
}

}  // namespace optimized
}  // namespace torchedge
