#include "kernels/quantized/support/per_tensor_simd.h"

#include <limits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/support/quantize_loops.h"

// The dispatchers live here, compiled for the baseline ISA, not in the
// -mavx2 file: they run before anyone knows the CPU has AVX2 (or NEON, on
// AArch64: support/arm/per_tensor_neon.cpp). The scalar
// tails are the registered kernels' own loops.
namespace torchedge {
namespace quantized {
namespace {

#if defined(TORCHEDGE_QUANTIZED_X86) || defined(TORCHEDGE_QUANTIZED_ARM)
// This build's vector bodies: AVX2 on x86-64, NEON on AArch64.
bool simd_here() {
#if defined(TORCHEDGE_QUANTIZED_X86)
  return quant_isa() >= QuantIsa::kAvx2;
#else
  return optimized::best_arm_isa() >= optimized::ArmIsa::kNeon;
#endif
}

template <typename Q>
size_t quantize_body(const float* in, Q* out, size_t count, const QuantizeParams<float>& p) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  return quantize_per_tensor_avx2(in, out, count, p);
#else
  return quantize_per_tensor_neon(in, out, count, p);
#endif
}
#endif

template <typename Q>
bool quantize_simd(const float* in, Q* out, size_t count, const QuantizeParams<float>& p) {
#if defined(TORCHEDGE_QUANTIZED_X86) || defined(TORCHEDGE_QUANTIZED_ARM)
  if (!simd_here()) return false;
  // The vector clamp is min(max(x, lo), hi) and the packs saturate; both
  // match the scalar code only for an ordered range inside Q's (what
  // check_quant_range guarantees; NaN bounds fail these tests too).
  constexpr float kLo = std::numeric_limits<Q>::min(), kHi = std::numeric_limits<Q>::max();
  if (!(p.quant_min >= kLo && p.quant_max <= kHi && p.quant_min <= p.quant_max)) return false;
  const size_t done = quantize_body(in, out, count, p);
  quantize_run<float, Q, float, RoundOrder::kRoundThenShift>(in + done, out + done, count - done,
                                                             p);
  return true;
#else
  (void)in, (void)out, (void)count, (void)p;
  return false;
#endif
}

template <typename Q>
bool dequantize_simd(const Q* in, float* out, size_t count, double scale, double zero_point) {
#if defined(TORCHEDGE_QUANTIZED_X86) || defined(TORCHEDGE_QUANTIZED_ARM)
  if (!simd_here()) return false;
#if defined(TORCHEDGE_QUANTIZED_X86)
  const size_t done = dequantize_per_tensor_avx2(in, out, count, static_cast<float>(scale),
                                                 static_cast<float>(zero_point));
#else
  const size_t done = dequantize_per_tensor_neon(in, out, count, static_cast<float>(scale),
                                                 static_cast<float>(zero_point));
#endif
  dequantize_run_in_out_dtype<Q, float>(in + done, out + done, count - done, scale, zero_point);
  return true;
#else
  (void)in, (void)out, (void)count, (void)scale, (void)zero_point;
  return false;
#endif
}

}  // namespace

bool quantize_per_tensor_simd(const float* in, int8_t* out, size_t count,
                              const QuantizeParams<float>& p) {
  return quantize_simd(in, out, count, p);
}

bool quantize_per_tensor_simd(const float* in, uint8_t* out, size_t count,
                              const QuantizeParams<float>& p) {
  return quantize_simd(in, out, count, p);
}

bool dequantize_per_tensor_simd(const int8_t* in, float* out, size_t count, double scale,
                                double zero_point) {
  return dequantize_simd(in, out, count, scale, zero_point);
}

bool dequantize_per_tensor_simd(const uint8_t* in, float* out, size_t count, double scale,
                                double zero_point) {
  return dequantize_simd(in, out, count, scale, zero_point);
}

}  // namespace quantized
}  // namespace torchedge
