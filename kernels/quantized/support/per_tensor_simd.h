// torchedge/kernels/quantized/support/per_tensor_simd.h
//
// SIMD paths of the two per-tensor conversions that int8 CNN programs run
// between float ops (the model input/output, pooling):
//
//   quantize   float32 -> int8/uint8:
//     out = to_quant(clamp_nan(round_half_even(x * inv_scale) + zero_point,
//                              quant_min, quant_max))
//     exactly as quantize_run<float, Q, float, RoundOrder::kRoundThenShift>
//     (quantize_loops.h, affine.h) computes it;
//   dequantize int8/uint8 -> float32:
//     out = (float(q) - float(zero_point)) * float(scale), each step rounded
//     to float32, exactly as dequantize_run_in_out_dtype<Q, float>
//     (dequantize_loops.h) computes it.
//
// Bit-exact with those scalar loops for every input: ties round to even
// (_mm256_round_ps nearest), values far outside the range and +-inf clamp to
// quant_min/quant_max, NaN (from the input, inv_scale or zero_point) gives 0
// as eager's .to(int8) does, -0.0 gives 0. Every step is the same IEEE
// float32 operation in the same order (no FMA), so no input can differ.
//
// Each function returns false, and writes nothing, when it has no fast path
// here (no AVX2 or NEON on this CPU, TORCHEDGE_ISA=scalar, another
// architecture, or, for
// quantize, quant_min/quant_max not an ordered range inside Q's range); the
// caller then runs the scalar loop. Pointers are not owned; `in` and `out`
// hold `count` elements each and must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/affine.h"

namespace torchedge {
namespace quantized {

/// p: as quantize_per_tensor builds it (float(1.0 / scale), float zero
/// point, float quant_min/quant_max).
bool quantize_per_tensor_simd(const float* in, int8_t* out, size_t count,
                              const QuantizeParams<float>& p);
bool quantize_per_tensor_simd(const float* in, uint8_t* out, size_t count,
                              const QuantizeParams<float>& p);

/// scale/zero_point: as dequantize_per_tensor receives them (each rounded
/// to float before use, as the scalar loop does).
bool dequantize_per_tensor_simd(const int8_t* in, float* out, size_t count, double scale,
                                double zero_point);
bool dequantize_per_tensor_simd(const uint8_t* in, float* out, size_t count, double scale,
                                double zero_point);

#if defined(TORCHEDGE_QUANTIZED_X86)
/// AVX2 bodies (support/x86/per_tensor_avx2.cpp): convert the first
/// count - count % 8 elements and return that number; the dispatchers above
/// run the rest through the scalar loops. Only call when quant_isa() >=
/// kAvx2; quantize requires quant_min <= quant_max within Q's range.
size_t quantize_per_tensor_avx2(const float* in, int8_t* out, size_t count,
                                const QuantizeParams<float>& p);
size_t quantize_per_tensor_avx2(const float* in, uint8_t* out, size_t count,
                                const QuantizeParams<float>& p);
size_t dequantize_per_tensor_avx2(const int8_t* in, float* out, size_t count, float scale,
                                  float zero_point);
size_t dequantize_per_tensor_avx2(const uint8_t* in, float* out, size_t count, float scale,
                                  float zero_point);
#endif

#if defined(TORCHEDGE_QUANTIZED_ARM)
/// The same on AArch64 NEON (support/arm/per_tensor_neon.cpp; Q int8_t or
/// uint8_t), 16 elements per step: count - count % 16 converted. Only call
/// when best_arm_isa() >= kNeon, with quantize's range as for AVX2.
template <typename Q>
size_t quantize_per_tensor_neon(const float* in, Q* out, size_t count,
                                const QuantizeParams<float>& p);
template <typename Q>
size_t dequantize_per_tensor_neon(const Q* in, float* out, size_t count, float scale,
                                  float zero_point);
#endif

}  // namespace quantized
}  // namespace torchedge
