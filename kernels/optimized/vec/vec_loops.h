// torchedge/kernels/optimized/vec/vec_loops.h
//
// The elementwise loops of the vector tables (vec_kernels.h) written once
// over an ISA's vector operations S, shared by vec_kernels_avx2.cpp and
// vec_kernels_neon.cpp. S is the convolution loops' ISA struct
// (conv/simd_avx2.h Avx2, conv/simd_neon.h Neon), of which these use:
//
//   using V; kLanes; load, store, set1; add, sub, mul, div (one IEEE
//   operation each); load_tail(p, n) / store_tail(p, v, n): the first n
//   (0 < n < kLanes) floats, other lanes 0 / not written (masked loads
//   and stores on x86, a small buffer on NEON).
//
// Every element of a call gets the same vector arithmetic (a tail is one
// more vector, never a scalar loop), so results do not depend on where an
// element falls. Include ONLY from one ISA's translation unit, after the
// definitions S needs; the templates live in that file's anonymous
// namespace.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/optimized/vec/vec_math_coefficients.h"

namespace torchedge {
namespace optimized {
namespace {

/// VecKernels::binary's switch from its run-time arguments to
/// Loops::binary_loop<op, a is one float, b is one float>(a, b, alpha, y, n)
/// (VecLoops below; the scalar table's plain loops).
template <typename Loops>
void binary_switch(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                   float alpha, float* y, int64_t n) {
  auto with_op = [&](auto op_constant) {
    constexpr BinaryOp kOp = decltype(op_constant)::value;
    if (a_scalar && b_scalar) return Loops::template binary_loop<kOp, true, true>(a, b, alpha, y, n);
    if (a_scalar) return Loops::template binary_loop<kOp, true, false>(a, b, alpha, y, n);
    if (b_scalar) return Loops::template binary_loop<kOp, false, true>(a, b, alpha, y, n);
    return Loops::template binary_loop<kOp, false, false>(a, b, alpha, y, n);
  };
  switch (op) {
    case BinaryOp::kAdd: return with_op(std::integral_constant<BinaryOp, BinaryOp::kAdd>{});
    case BinaryOp::kSub: return with_op(std::integral_constant<BinaryOp, BinaryOp::kSub>{});
    case BinaryOp::kMul: return with_op(std::integral_constant<BinaryOp, BinaryOp::kMul>{});
    case BinaryOp::kDiv: return with_op(std::integral_constant<BinaryOp, BinaryOp::kDiv>{});
  }
}

template <typename S>
struct VecLoops {
  using V = typename S::V;
  static constexpr int64_t kLanes = S::kLanes;

  /// y[i] = f(x[i]) for i < n, two vectors per step (independent chains
  /// hide the latency), then one, then a masked tail.
  template <typename F>
  static inline void map(const float* x, float* y, int64_t n, F f) {
    int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
      const V a = f(S::load(x + i));
      const V b = f(S::load(x + i + kLanes));
      S::store(y + i, a);
      S::store(y + i + kLanes, b);
    }
    for (; i + kLanes <= n; i += kLanes) S::store(y + i, f(S::load(x + i)));
    if (i < n) S::store_tail(y + i, f(S::load_tail(x + i, n - i)), n - i);
  }

  /// Folds f(vector, accumulator) over the whole vectors of x into two
  /// accumulators (independent chains), returns their sum and sets *done
  /// to the elements covered; the tail is the caller's.
  template <typename F>
  static inline V accumulate(const float* x, int64_t n, int64_t* done, F f) {
    V s0 = S::zero(), s1 = S::zero();
    int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
      s0 = f(S::load(x + i), s0);
      s1 = f(S::load(x + i + kLanes), s1);
    }
    for (; i + kLanes <= n; i += kLanes) s0 = f(S::load(x + i), s0);
    *done = i;
    return S::add(s0, s1);
  }

  /// VecKernels::row_moments over the ISA's double-precision sum of a row's
  /// whole vectors (kSumDouble, which sets *done to the elements it took):
  /// the mean in double, the centered sum of squares in float around
  /// float(mean) (whole vectors), each tail in double.
  template <double (*kSumDouble)(const float*, int64_t, int64_t*)>
  static void row_moments(const float* x, int64_t n, double eps, double* mean, double* rstd) {
    int64_t i = 0;
    double sum = kSumDouble(x, n, &i);
    for (; i < n; ++i) sum += x[i];
    const double mu = sum / static_cast<double>(n);
    const float m = static_cast<float>(mu);
    const V vm = S::set1(m);
    double squares = S::reduce_add(accumulate(x, n, &i, [vm](V v, V acc) {
      const V d = S::sub(v, vm);
      return S::fma(d, d, acc);
    }));
    for (; i < n; ++i) squares += (static_cast<double>(x[i]) - m) * (static_cast<double>(x[i]) - m);
    *mean = mu;
    *rstd = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
  }

  /// VecKernels::layer_norm_row over the ISA's row_moments (kMoments): y =
  /// (x - mean) * rstd * w + b, one vector at a time, w and b optional.
  template <void (*kMoments)(const float*, int64_t, double, double*, double*)>
  static void layer_norm_row(const float* x, const float* w, const float* b, double eps,
                             int64_t n, float* y, float* mean, float* rstd) {
    double mu, inv;
    kMoments(x, n, eps, &mu, &inv);
    const float m = static_cast<float>(mu), r = static_cast<float>(inv);
    const V vm = S::set1(m), vr = S::set1(r);
    auto affine = [&](V a, int64_t at, int64_t count) {
      V t = S::mul(S::sub(a, vm), vr);
      if (w != nullptr) t = S::mul(t, count == kLanes ? S::load(w + at) : S::load_tail(w + at, count));
      if (b != nullptr) t = S::add(t, count == kLanes ? S::load(b + at) : S::load_tail(b + at, count));
      return t;
    };
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) S::store(y + i, affine(S::load(x + i), i, kLanes));
    if (i < n) S::store_tail(y + i, affine(S::load_tail(x + i, n - i), i, n - i), n - i);
    *mean = m;
    *rstd = r;
  }

  template <BinaryOp kOp>
  static inline V apply(V a, V b, V alpha, bool scaled) {
    if constexpr (kOp == BinaryOp::kAdd) return S::add(a, scaled ? S::mul(alpha, b) : b);
    if constexpr (kOp == BinaryOp::kSub) return S::sub(a, scaled ? S::mul(alpha, b) : b);
    if constexpr (kOp == BinaryOp::kMul) return S::mul(a, b);
    return S::div(a, b);
  }

  /// VecKernels::binary for one op and broadcast pattern. A tail's
  /// masked-off lanes of b are 0: kDiv gives inf/NaN in lanes never stored.
  template <BinaryOp kOp, bool kAScalar, bool kBScalar>
  static void binary_loop(const float* a, const float* b, float alpha, float* y, int64_t n) {
    const V va = S::set1(a[0]), vb = S::set1(b[0]), valpha = S::set1(alpha);
    const bool scaled = alpha != 1.0f;
    auto at = [&](int64_t i) {
      const V xa = kAScalar ? va : S::load(a + i);
      const V xb = kBScalar ? vb : S::load(b + i);
      return apply<kOp>(xa, xb, valpha, scaled);
    };
    int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
      const V y0 = at(i), y1 = at(i + kLanes);
      S::store(y + i, y0);
      S::store(y + i + kLanes, y1);
    }
    for (; i + kLanes <= n; i += kLanes) S::store(y + i, at(i));
    if (i < n) {
      const V xa = kAScalar ? va : S::load_tail(a + i, n - i);
      const V xb = kBScalar ? vb : S::load_tail(b + i, n - i);
      S::store_tail(y + i, apply<kOp>(xa, xb, valpha, scaled), n - i);
    }
  }

  /// VecKernels::binary.
  static void binary(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                     float alpha, float* y, int64_t n);
};

template <typename S>
void VecLoops<S>::binary(BinaryOp op, const float* a, bool a_scalar, const float* b,
                         bool b_scalar, float alpha, float* y, int64_t n) {
  binary_switch<VecLoops<S>>(op, a, a_scalar, b, b_scalar, alpha, y, n);
}

/// The table's elementwise entries (exp .. relu, binary) over S and the
/// ISA's math M: static exp, tanh, erf, gelu_erf, sigmoid and relu of one
/// vector (vec_math_<isa>.h). with_rows() adds the reductions (sum, max,
/// softmax, layer norm rows), whose tails differ per ISA: the including
/// file's.
template <typename S, typename M>
struct ElementwiseTable {
  using V = typename S::V;
  using L = VecLoops<S>;

  static void exp(const float* x, float* y, int64_t n) { L::map(x, y, n, M::exp); }
  static void tanh(const float* x, float* y, int64_t n) { L::map(x, y, n, M::tanh); }
  static void erf(const float* x, float* y, int64_t n) { L::map(x, y, n, M::erf); }
  static void gelu_erf(const float* x, float* y, int64_t n) { L::map(x, y, n, M::gelu_erf); }
  static void sigmoid(const float* x, float* y, int64_t n) { L::map(x, y, n, M::sigmoid); }
  static void relu(const float* x, float* y, int64_t n) { L::map(x, y, n, M::relu); }

  // x/2 (1 + tanh(u)) = x / (1 + e^{-2u}): one exp, no cancellation for x < 0.
  static void gelu_tanh(const float* x, float* y, int64_t n) {
    L::map(x, y, n, [](V a) {
      const V cube = S::mul(S::mul(a, a), a);
      const V inner = S::fma(S::set1(vec_math::kGeluTanhCubic), cube, a);
      const V e = M::exp(S::mul(S::set1(-2.0f * vec_math::kGeluTanhBeta), inner));
      return S::div(a, S::add(S::set1(1.0f), e));
    });
  }

  static void silu(const float* x, float* y, int64_t n) {
    L::map(x, y, n, [](V a) {
      return S::div(a, S::add(S::set1(1.0f), M::exp(S::sub(S::zero(), a))));
    });
  }

  /// y = x * scale + shift, one rounding (group norm's affine step).
  static void scale_shift(const float* x, float scale, float shift, float* y, int64_t n) {
    const V a = S::set1(scale), c = S::set1(shift);
    L::map(x, y, n, [a, c](V t) { return S::fma(t, a, c); });
  }

  /// The whole table: these entries and the ISA's row functions.
  static VecKernels with_rows(float (*sum)(const float*, int64_t),
                              float (*max)(const float*, int64_t),
                              void (*softmax_row)(const float*, float*, int64_t),
                              void (*log_softmax_row)(const float*, float*, int64_t),
                              decltype(VecKernels::layer_norm_row) layer_norm_row,
                              decltype(VecKernels::row_moments) row_moments) {
    return {exp,         tanh,      erf,     gelu_erf,        gelu_tanh,      sigmoid,
            silu,        relu,      L::binary, sum,           max,            softmax_row,
            log_softmax_row, layer_norm_row, row_moments, scale_shift};
  }
};

}  // namespace
}  // namespace optimized
}  // namespace torchedge
