// The AVX-512 table (compiled with -mavx512f/dq/bw/vl; vec_kernels() hands
// it out only when best_isa() is kAvx512). The transcendental loops, the
// row reductions (softmax, log_softmax, layer norm) and sum/max run 16
// floats at a time and finish a tail with one masked load/store, so no
// element is touched twice. relu and the binary ops do one arithmetic op
// per load and store; they stay on the AVX2 table's loops.
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() and trip
// -W(maybe-)uninitialized (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cmath>

#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

namespace v = vec_avx512;

template <typename F>
inline void map(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {  // two independent vectors per step hide the latency
    const __m512 a = f(_mm512_loadu_ps(x + i));
    const __m512 b = f(_mm512_loadu_ps(x + i + 16));
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, f(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, mask, f(_mm512_maskz_loadu_ps(mask, x + i)));
  }
}

void exp_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](__m512 a) { return v::exp(a); }); }
void tanh_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](__m512 a) { return v::tanh(a); }); }
void erf_loop(const float* x, float* y, int64_t n) { map(x, y, n, [](__m512 a) { return v::erf(a); }); }
void gelu_erf_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](__m512 a) { return v::gelu_erf(a); });
}

// x/2 (1 + tanh(u)) = x / (1 + e^{-2u}): one exp, no cancellation for x < 0.
void gelu_tanh_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](__m512 a) {
    const __m512 minus_two_beta = _mm512_set1_ps(-2.0f * vec_math::kGeluTanhBeta);
    const __m512 cube = _mm512_mul_ps(_mm512_mul_ps(a, a), a);
    const __m512 inner = _mm512_fmadd_ps(_mm512_set1_ps(vec_math::kGeluTanhCubic), cube, a);
    const __m512 e = v::exp(_mm512_mul_ps(minus_two_beta, inner));
    return _mm512_div_ps(a, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
  });
}

void sigmoid_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](__m512 a) { return v::sigmoid(a); });
}
void silu_loop(const float* x, float* y, int64_t n) {
  map(x, y, n, [](__m512 a) {
    const __m512 e = v::exp(_mm512_sub_ps(_mm512_setzero_ps(), a));
    return _mm512_div_ps(a, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
  });
}

float sum(const float* x, int64_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + i));
    s1 = _mm512_add_ps(s1, _mm512_loadu_ps(x + i + 16));
  }
  for (; i + 16 <= n; i += 16) s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + i));
  if (i < n) s1 = _mm512_add_ps(s1, _mm512_maskz_loadu_ps(v::tail_mask(n - i), x + i));
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

float max(const float* x, int64_t n) {
  const __m512 lowest = _mm512_set1_ps(-__builtin_inff());
  __m512 m = lowest;
  __mmask16 nan = 0;  // lanes where a NaN was seen (vmaxps would drop it)
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 a = _mm512_loadu_ps(x + i);
    m = _mm512_max_ps(m, a);
    nan |= v::is_nan(a);
  }
  if (i < n) {
    const __m512 a = _mm512_mask_loadu_ps(lowest, v::tail_mask(n - i), x + i);
    m = _mm512_max_ps(m, a);
    nan |= v::is_nan(a);
  }
  if (nan != 0) return __builtin_nanf("");
  return _mm512_reduce_max_ps(m);
}

// y = e^{x - m} and returns the sum of y (y may be null: sum only).
float exp_shifted(const float* x, float m, float* y, int64_t n) {
  const __m512 vm = _mm512_set1_ps(m);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = v::exp(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
    const __m512 b = v::exp(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vm));
    if (y != nullptr) {
      _mm512_storeu_ps(y + i, a);
      _mm512_storeu_ps(y + i + 16, b);
    }
    s0 = _mm512_add_ps(s0, a);
    s1 = _mm512_add_ps(s1, b);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 a = v::exp(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
    if (y != nullptr) _mm512_storeu_ps(y + i, a);
    s0 = _mm512_add_ps(s0, a);
  }
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    // Masked-off lanes would hold e^{0 - m}; zero them before summing.
    const __m512 a = _mm512_maskz_mov_ps(mask, v::exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, x + i), vm)));
    if (y != nullptr) _mm512_mask_storeu_ps(y + i, mask, a);
    s1 = _mm512_add_ps(s1, a);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

void softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float s = exp_shifted(x, m, y, n);
  const __m512 inv = _mm512_set1_ps(static_cast<float>(1.0 / static_cast<double>(s)));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, mask, _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, y + i), inv));
  }
}

void log_softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float log_s = static_cast<float>(std::log(static_cast<double>(exp_shifted(x, m, nullptr, n))));
  // (x - m) - log_s, rounded twice as the portable kernel does.
  const __m512 vm = _mm512_set1_ps(m), vl = _mm512_set1_ps(log_s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(y + i, _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vl));
  }
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    const __m512 a = _mm512_maskz_loadu_ps(mask, x + i);
    _mm512_mask_storeu_ps(y + i, mask, _mm512_sub_ps(_mm512_sub_ps(a, vm), vl));
  }
}

// Sum in double (a float sum of values near 1000 would lose the 1e-5 the
// normalized output needs), 8 + 8 lanes per step.
double sum_double(const float* x, int64_t n) {
  __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
  auto add = [&](__m512 a) {
    s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(a)));
    s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1)));
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) add(_mm512_loadu_ps(x + i));
  if (i < n) add(_mm512_maskz_loadu_ps(v::tail_mask(n - i), x + i));
  return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

void row_moments(const float* x, int64_t n, double eps, double* mean, double* rstd) {
  const double mu = sum_double(x, n) / static_cast<double>(n);
  const float m = static_cast<float>(mu);
  // Centered second pass in float: (x - m) is exact to within rounding of m.
  const __m512 vm = _mm512_set1_ps(m);
  __m512 q0 = _mm512_setzero_ps(), q1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), vm);
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vm);
    q0 = _mm512_fmadd_ps(d0, d0, q0);
    q1 = _mm512_fmadd_ps(d1, d1, q1);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), vm);
    q0 = _mm512_fmadd_ps(d, d, q0);
  }
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    const __m512 d = _mm512_maskz_sub_ps(mask, _mm512_maskz_loadu_ps(mask, x + i), vm);  // 0 off the row
    q1 = _mm512_fmadd_ps(d, d, q1);
  }
  const double squares = _mm512_reduce_add_ps(_mm512_add_ps(q0, q1));
  *mean = mu;
  *rstd = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
}

void layer_norm_row(const float* x, const float* w, const float* b, double eps, int64_t n,
                    float* y, float* mean, float* rstd) {
  double mu, inv;
  row_moments(x, n, eps, &mu, &inv);
  const float m = static_cast<float>(mu);
  const __m512 vm = _mm512_set1_ps(m);
  int64_t i = 0;
  const float r = static_cast<float>(inv);
  const __m512 vr = _mm512_set1_ps(r);
  // Masked-off lanes load 0 from w and b and are never stored.
  auto affine = [&](int64_t at, __mmask16 mask) {
    __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, x + at), vm), vr);
    if (w != nullptr) t = _mm512_mul_ps(t, _mm512_maskz_loadu_ps(mask, w + at));
    if (b != nullptr) t = _mm512_add_ps(t, _mm512_maskz_loadu_ps(mask, b + at));
    return t;
  };
  for (i = 0; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, affine(i, 0xFFFF));
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, mask, affine(i, mask));
  }
  *mean = m;
  *rstd = r;
}

void scale_shift(const float* x, float scale, float shift, float* y, int64_t n) {
  const __m512 a = _mm512_set1_ps(scale), c = _mm512_set1_ps(shift);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(_mm512_loadu_ps(x + i), a, c));
    _mm512_storeu_ps(y + i + 16, _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), a, c));
  }
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_fmadd_ps(_mm512_loadu_ps(x + i), a, c));
  if (i < n) {
    const __mmask16 mask = v::tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, mask, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, x + i), a, c));
  }
}

}  // namespace

const VecKernels& avx512_vec_kernels() {
  static const VecKernels kTable = [] {
    VecKernels t = avx2_vec_kernels();  // relu, binary
    t.exp = exp_loop;
    t.tanh = tanh_loop;
    t.erf = erf_loop;
    t.gelu_erf = gelu_erf_loop;
    t.gelu_tanh = gelu_tanh_loop;
    t.sigmoid = sigmoid_loop;
    t.silu = silu_loop;
    t.sum = sum;
    t.max = max;
    t.softmax_row = softmax_row;
    t.log_softmax_row = log_softmax_row;
    t.layer_norm_row = layer_norm_row;
    t.row_moments = row_moments;
    t.scale_shift = scale_shift;
    return t;
  }();
  return kTable;
}

}  // namespace optimized
}  // namespace torchedge
