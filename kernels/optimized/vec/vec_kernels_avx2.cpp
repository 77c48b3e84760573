// The AVX2 + FMA table (compiled with -mavx2 -mfma; vec_kernels() hands it
// out only when the CPU has both). Loops run 8 floats at a time and finish
// a tail with masked loads/stores, so no element is touched twice.
#include <cmath>

#include "kernels/optimized/conv/simd_avx2.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/optimized/vec/vec_loops.h"
#include "kernels/optimized/vec/vec_math_avx2.h"

namespace torchedge {
namespace optimized {
namespace {

namespace v = vec_avx2;

using Loops = VecLoops<Avx2>;  // vec_loops.h over conv/simd_avx2.h

// vec_math_avx2.h's functions as ElementwiseTable's math.
struct Avx2Math {
  static __m256 exp(__m256 a) { return v::exp(a); }
  static __m256 tanh(__m256 a) { return v::tanh(a); }
  static __m256 erf(__m256 a) { return v::erf(a); }
  static __m256 gelu_erf(__m256 a) { return v::gelu_erf(a); }
  static __m256 sigmoid(__m256 a) { return v::sigmoid(a); }
  // Only lanes strictly below zero become 0, so NaN and -0 pass through.
  static __m256 relu(__m256 a) {
    return _mm256_blendv_ps(a, _mm256_setzero_ps(), _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_LT_OQ));
  }
};

float sum(const float* x, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + i));
    s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + i + 8));
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + i));
  if (i < n) s1 = _mm256_add_ps(s1, _mm256_maskload_ps(x + i, v::tail_mask(n - i)));
  return v::hsum(_mm256_add_ps(s0, s1));
}

float max(const float* x, int64_t n) {
  __m256 m = _mm256_set1_ps(-__builtin_inff());
  __m256 nan = _mm256_setzero_ps();  // all-ones lanes where a NaN was seen
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = _mm256_loadu_ps(x + i);
    m = _mm256_max_ps(m, a);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
  if (i < n) {
    const __m256i mask = v::tail_mask(n - i);
    const __m256 a = _mm256_blendv_ps(_mm256_set1_ps(-__builtin_inff()), _mm256_maskload_ps(x + i, mask),
                                      _mm256_castsi256_ps(mask));
    m = _mm256_max_ps(m, a);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
  if (_mm256_movemask_ps(nan) != 0) return __builtin_nanf("");
  return v::hmax(m);
}

// y = e^{x - m} and returns the sum of y (y may be null: sum only).
float exp_shifted(const float* x, float m, float* y, int64_t n) {
  const __m256 vm = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = v::exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    const __m256 b = v::exp(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vm));
    if (y != nullptr) {
      _mm256_storeu_ps(y + i, a);
      _mm256_storeu_ps(y + i + 8, b);
    }
    s0 = _mm256_add_ps(s0, a);
    s1 = _mm256_add_ps(s1, b);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 a = v::exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    if (y != nullptr) _mm256_storeu_ps(y + i, a);
    s0 = _mm256_add_ps(s0, a);
  }
  if (i < n) {
    const __m256i mask = v::tail_mask(n - i);
    // Masked-off lanes hold e^{0 - m}; zero them before summing.
    const __m256 a = _mm256_and_ps(v::exp(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), vm)),
                                   _mm256_castsi256_ps(mask));
    if (y != nullptr) _mm256_maskstore_ps(y + i, mask, a);
    s1 = _mm256_add_ps(s1, a);
  }
  return v::hsum(_mm256_add_ps(s0, s1));
}

void scale(float* y, float factor, int64_t n) {
  const float one = 1.0f;
  Loops::binary_loop<BinaryOp::kMul, false, true>(y, &factor, one, y, n);
}

void softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float s = exp_shifted(x, m, y, n);
  scale(y, static_cast<float>(1.0 / static_cast<double>(s)), n);
}

void log_softmax_row(const float* x, float* y, int64_t n) {
  const float m = max(x, n);
  const float log_s = static_cast<float>(std::log(static_cast<double>(exp_shifted(x, m, nullptr, n))));
  // (x - m) - log_s, rounded twice as the portable kernel does.
  const __m256 vm = _mm256_set1_ps(m), vl = _mm256_set1_ps(log_s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), vl));
  }
  if (i < n) {
    const __m256i mask = v::tail_mask(n - i);
    _mm256_maskstore_ps(y + i, mask, _mm256_sub_ps(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), vm), vl));
  }
}

// Sum in double (a float sum of values near 1000 would lose the 1e-5 the
// normalized output needs), 4 + 4 lanes per step.
double sum_double(const float* x, int64_t n, int64_t* done) {
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = _mm256_loadu_ps(x + i);
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
  }
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(_mm256_add_pd(s0, s1)),
                         _mm256_extractf128_pd(_mm256_add_pd(s0, s1), 1));
  *done = i;
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

}  // namespace

const VecKernels& avx2_vec_kernels() {
  static const VecKernels kTable = ElementwiseTable<Avx2, Avx2Math>::with_rows(
      sum, max, softmax_row, log_softmax_row,
      Loops::layer_norm_row<Loops::row_moments<sum_double>>, Loops::row_moments<sum_double>);
  return kTable;
}

}  // namespace optimized
}  // namespace torchedge
