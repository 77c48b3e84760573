#include "kernels/quantized/support/int8_add.h"

#include <algorithm>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/per_tensor_simd.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/support/quantize_loops.h"

namespace torchedge {
namespace quantized {

void int8_add_scalar(const Int8AddProblem& p, int64_t begin, int64_t end) {
  // The registered kernels' own loops, a block at a time through the stack.
  constexpr int64_t kBlock = 256;
  float fa[kBlock], fb[kBlock];
  for (int64_t i = begin; i < end; i += kBlock) {
    const size_t n = static_cast<size_t>(std::min(kBlock, end - i));
    dequantize_run_in_out_dtype<int8_t, float>(p.a + i, fa, n, p.a_scale, p.a_zero_point);
    dequantize_run_in_out_dtype<int8_t, float>(p.b + i, fb, n, p.b_scale, p.b_zero_point);
    for (size_t j = 0; j < n; ++j) fa[j] = fa[j] + fb[j];
    quantize_run<float, int8_t, float, RoundOrder::kRoundThenShift>(fa, p.out + i, n,
                                                                     p.out_params);
  }
}

void int8_add_per_tensor_simd(const Int8AddProblem& p, int64_t begin, int64_t end) {
  // int8_add_scalar's blocks through the per-tensor SIMD conversions, which
  // are bit-exact with the scalar loops (per_tensor_simd.h) and fall back
  // to them where they have no path; the float sum auto-vectorizes.
  constexpr int64_t kBlock = 256;
  float fa[kBlock], fb[kBlock];
  for (int64_t i = begin; i < end; i += kBlock) {
    const size_t n = static_cast<size_t>(std::min(kBlock, end - i));
    if (!dequantize_per_tensor_simd(p.a + i, fa, n, p.a_scale, p.a_zero_point)) {
      dequantize_run_in_out_dtype<int8_t, float>(p.a + i, fa, n, p.a_scale, p.a_zero_point);
    }
    if (!dequantize_per_tensor_simd(p.b + i, fb, n, p.b_scale, p.b_zero_point)) {
      dequantize_run_in_out_dtype<int8_t, float>(p.b + i, fb, n, p.b_scale, p.b_zero_point);
    }
    for (size_t j = 0; j < n; ++j) fa[j] = fa[j] + fb[j];
    if (!quantize_per_tensor_simd(fa, p.out + i, n, p.out_params)) {
      quantize_run<float, int8_t, float, RoundOrder::kRoundThenShift>(fa, p.out + i, n,
                                                                       p.out_params);
    }
  }
}

void run_int8_add(const Int8AddProblem& p) {
  // Off x86 (AArch64: the NEON conversions of support/arm/per_tensor_neon.cpp).
  auto run = int8_add_per_tensor_simd;
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) run = int8_add_avx2;
#endif
  // Below ~64K elements a thread costs more than it saves.
  constexpr int64_t kGrain = 1 << 16;
  parallel_for(0, p.count, kGrain, [&](int64_t begin, int64_t end) { run(p, begin, end); });
}

}  // namespace quantized
}  // namespace torchedge
