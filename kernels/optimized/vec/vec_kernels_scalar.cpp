// The scalar table: plain loops over the C library's functions, with the
// portable kernels' formulas, for CPUs without AVX2 + FMA (and as the
// reference the vector tables are tested against).
#include <cmath>

#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/optimized/vec/vec_loops.h"
#include "kernels/portable/support/gelu.h"

namespace torchedge {
namespace optimized {
namespace {

template <typename F>
void map(const float* x, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

void exp_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](float v) { return std::exp(v); }); }
void tanh_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](float v) { return std::tanh(v); }); }
void erf_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](float v) { return std::erf(v); }); }

void gelu_erf_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](float v) { return native::gelu_exact(v); });
}

void gelu_tanh_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](float v) { return native::gelu_tanh(v); });
}

void sigmoid_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}
void silu_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](float v) { return v / (1.0f + std::exp(-v)); });
}
void relu_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](float v) { return v < 0.0f ? 0.0f : v; });
}

template <BinaryOp kOp>
float apply(float a, float b, float alpha) {
  if constexpr (kOp == BinaryOp::kAdd) return a + alpha * b;
  if constexpr (kOp == BinaryOp::kSub) return a - alpha * b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  return a / b;
}

struct ScalarBinary {
  template <BinaryOp kOp, bool kAScalar, bool kBScalar>
  static void binary_loop(const float* a, const float* b, float alpha, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = apply<kOp>(a[kAScalar ? 0 : i], b[kBScalar ? 0 : i], alpha);
  }
};

float sum(const float* x, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  return static_cast<float>(s);
}

float max(const float* x, int64_t n) {
  float m = x[0];
  for (int64_t i = 1; i < n; ++i) {
    if (x[i] > m || x[i] != x[i]) m = x[i];
    if (m != m) break;
  }
  return m;
}

void softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - m);
    s += y[i];
  }
  const float inv = static_cast<float>(1.0 / s);
  for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

void log_softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
  const float log_s = static_cast<float>(std::log(s));
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - m - log_s;
}

void row_moments(const float* x, int64_t n, double eps, double* mean, double* rstd) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  const double mu = s / static_cast<double>(n);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq += (x[i] - mu) * (x[i] - mu);
  *mean = mu;
  *rstd = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
}

void layer_norm_row(const float* x, const float* w, const float* b, double eps, int64_t n,
                    float* y, float* mean, float* rstd) {
  double mu, inv;
  row_moments(x, n, eps, &mu, &inv);
  const float m = static_cast<float>(mu), r = static_cast<float>(inv);
  for (int64_t i = 0; i < n; ++i) {
    float v = (x[i] - m) * r;
    if (w != nullptr) v *= w[i];
    if (b != nullptr) v += b[i];
    y[i] = v;
  }
  *mean = m;
  *rstd = r;
}

void scale_shift(const float* x, float scale, float shift, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale + shift;
}

}  // namespace

const VecKernels& scalar_vec_kernels() {
  static const VecKernels kTable = {
      exp_loop,        tanh_loop,      erf_loop,    gelu_erf_loop, gelu_tanh_loop, sigmoid_loop,
      silu_loop,       relu_loop,      binary_switch<ScalarBinary>, sum, max,      softmax_row,
      log_softmax_row, layer_norm_row, row_moments, scale_shift};
  return kTable;
}

}  // namespace optimized
}  // namespace torchedge
