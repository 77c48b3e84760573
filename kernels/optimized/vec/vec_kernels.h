// torchedge/kernels/optimized/vec/vec_kernels.h
//
// The float32 inner loops of the optimized transformer kernels, one table
// per instruction set. The op files (kernels/optimized/ops/op_*.cpp) check
// arguments, split the work across threads and call these on contiguous
// runs; the tables hold no state and are safe to call from any thread.
//
//   const VecKernels& k = active_vec_kernels();   // best_isa()'s table
//   k.gelu_erf(x, y, n);
//
// Every pointer names `n` contiguous floats (n >= 0); outputs may alias
// their own input exactly (in place) but must not partially overlap.
// Semantics follow the portable kernels (kernels/portable): NaN propagates,
// softmax/log_softmax subtract the row max (no overflow for large inputs),
// a row containing +inf or NaN gives NaN as the portable kernel does, and
// -inf entries give 0 (a row of only -inf gives NaN; safe_softmax's zeros
// for it are op_softmax.cpp's business). Accuracy of the AVX2 and AVX-512
// tables is stated in vec_math_avx2.h and vec_math_avx512.h, of the NEON
// one in vec_math_neon.h (the same algorithms and constants); the scalar
// table calls the C library.
#pragma once

#include <cstdint>

#include "kernels/optimized/cpu/cpu_features.h"

namespace torchedge {
namespace optimized {

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

/// y[i] = f(x[i]).
using UnaryLoop = void (*)(const float* x, float* y, int64_t n);

struct VecKernels {
  UnaryLoop exp;
  UnaryLoop tanh;
  UnaryLoop erf;
  UnaryLoop gelu_erf;   // x/2 (1 + erf(x / sqrt 2))
  UnaryLoop gelu_tanh;  // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  UnaryLoop sigmoid;    // 1 / (1 + exp(-x))
  UnaryLoop silu;       // x / (1 + exp(-x))
  UnaryLoop relu;       // x < 0 ? 0 : x (NaN and -0 kept)

  /// y[i] = a[i] op (alpha * b[i]) for kAdd/kSub, a[i] op b[i] otherwise
  /// (alpha ignored). `a_scalar` / `b_scalar`: that operand is one float
  /// broadcast over all n (its pointer names 1 float).
  void (*binary)(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                 float alpha, float* y, int64_t n);

  float (*sum)(const float* x, int64_t n);
  /// Largest element; NaN when any element is NaN. n >= 1.
  float (*max)(const float* x, int64_t n);

  /// One softmax / log_softmax row of n >= 1 elements.
  void (*softmax_row)(const float* x, float* y, int64_t n);
  void (*log_softmax_row)(const float* x, float* y, int64_t n);

  /// One layer-norm row of n >= 1 elements: *mean, *rstd = 1/sqrt(var + eps)
  /// (biased variance) and y = (x - mean) * rstd * w + b; w and b may be null.
  void (*layer_norm_row)(const float* x, const float* w, const float* b, double eps, int64_t n,
                         float* y, float* mean, float* rstd);

  /// layer_norm_row's statistics of a row of n >= 1 elements, without the
  /// output: *mean (summed in double) and *rstd = 1/sqrt(var + eps) (the
  /// centered sum of squares: in double on the scalar table, in float
  /// around float(*mean) on the AVX ones). layer_norm_row's *mean and
  /// *rstd are these rounded to float.
  void (*row_moments)(const float* x, int64_t n, double eps, double* mean, double* rstd);
  /// y[i] = x[i] * scale + shift (one rounding where the ISA has FMA).
  void (*scale_shift)(const float* x, float scale, float shift, float* y, int64_t n);
};

/// The table for `isa`; an ISA this build or CPU lacks gives the widest
/// one below it that both have (non-x86 builds: the scalar one; ARM's
/// table comes from arm_vec_kernels()).
const VecKernels& vec_kernels(Isa isa);

/// The table for an ARM level: NEON from kNeon up (dot-product and i8mm
/// add nothing to float32), scalar below or off aarch64; never above what
/// detected_arm_isa() reports.
const VecKernels& arm_vec_kernels(ArmIsa isa);

/// The table the ops use, looked up once: vec_kernels(best_isa()) on x86,
/// arm_vec_kernels(best_arm_isa()) on aarch64.
const VecKernels& active_vec_kernels();

/// The tables themselves (vec_kernels_scalar.cpp, vec_kernels_avx2.cpp,
/// vec_kernels_avx512.cpp, vec_kernels_neon.cpp). The AVX-512 table runs the transcendental and
/// row loops 16 lanes wide and shares the AVX2 table's relu and binary.
/// The AVX ones exist on x86-64 builds only and may be called only on a
/// CPU that has their ISA: use vec_kernels() unless that is known. The
/// NEON one exists on aarch64 builds only.
const VecKernels& scalar_vec_kernels();
const VecKernels& avx2_vec_kernels();
const VecKernels& avx512_vec_kernels();
const VecKernels& neon_vec_kernels();

}  // namespace optimized
}  // namespace torchedge
