// torchedge/kernels/quantized/support/int8_add.h
//
// Elementwise int8 addition in eager's dequantize -> add -> quantize
// composition (the compute of torchedge::add_int8.out), bit-exact with it:
//
//   fa  = (float(a) - float(a_zp)) * float(a_scale)   as dequantize_per_tensor
//   fb  = (float(b) - float(b_zp)) * float(b_scale)   (dequantize_loops.h)
//   out = clamp(round_half_even((fa + fb) * inv_out_scale) + out_zp, qmin, qmax)
//                                                      as quantize_per_tensor
// with inv_out_scale = float(1.0 / double(out_scale)) (quantize_loops.h /
// affine.h; NaN, from inf - inf, gives 0 as eager's .to(int8) does). The
// scalar path calls those loops themselves; the AVX2 path
// (support/x86/add_int8_avx2.cpp) does the same float operations 8 lanes at
// a time; elsewhere the per-tensor SIMD conversions run them (NEON on
// AArch64: 5.4M of the int8 BERT encoder's 73M instructions were the
// scalar loops).
#pragma once

#include <cstdint>

#include "kernels/quantized/support/affine.h"

namespace torchedge {
namespace quantized {

struct Int8AddProblem {
  const int8_t* a;  // [count]; not owned
  const int8_t* b;  // [count]; not owned
  int8_t* out;      // [count]; not owned
  int64_t count = 0;
  double a_scale = 1.0, a_zero_point = 0.0;  // as dequantize_per_tensor receives them
  double b_scale = 1.0, b_zero_point = 0.0;
  QuantizeParams<float> out_params{};  // as quantize_per_tensor builds them
};

/// Elements [begin, end) on any CPU (the reference the SIMD path matches).
void int8_add_scalar(const Int8AddProblem& p, int64_t begin, int64_t end);

/// int8_add_scalar's steps with the per-tensor conversions of
/// per_tensor_simd.h (NEON on AArch64), bit-exact with it; any CPU.
void int8_add_per_tensor_simd(const Int8AddProblem& p, int64_t begin, int64_t end);

#if defined(TORCHEDGE_QUANTIZED_X86)
void int8_add_avx2(const Int8AddProblem& p, int64_t begin, int64_t end);
#endif

/// The best ISA, split over the shared thread pool for large tensors.
void run_int8_add(const Int8AddProblem& p);

}  // namespace quantized
}  // namespace torchedge
