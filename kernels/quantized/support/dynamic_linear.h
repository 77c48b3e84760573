// torchedge/kernels/quantized/support/dynamic_linear.h
//
// The compute the dynamic int8 linear kernels share
// (op_linear_dynamic_int8.cpp: weight [N, K]; op_linear_dynamic_int8_packed.cpp:
// weight in the strip layout of support/int8_gemm_f32.h;
// op_linear_dynamic_int8_packed_split.cpp: several such weights on one
// input, one output each): quantize `in` once per tensor (bit-exact with
// choose_qparams + quantize_per_tensor), then per segment resize its output
// to [..., n], exact int32 GEMM, float epilogue. The caller has validated
// every argument (dtypes, shapes, row-major, K <= kMaxInt8GemmK).
#pragma once

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace quantized {

struct DynamicLinearSegment {
  const int8_t* weight;  // [n, K] row-major, or the strip layout when packed
  bool packed;
  int64_t n;
  const float* scales;   // [n]
  const float* bias;     // [n] or nullptr
  Tensor* out;           // resized to [..., n]
};

/// Layers per call (the problem table lives on the stack).
constexpr size_t kMaxDynamicLinearSegments = 16;

/// The checks every dynamic int8 linear kernel makes of its operands other
/// than the weight: input a non-empty row-major float32 tensor of rank >= 1
/// with K = input.size(-1) <= kMaxInt8GemmK; weight_scales float32 [n]; bias
/// float32 [n] or null. InvalidArgument naming `op` otherwise.
Error check_dynamic_linear_operands(const Tensor& in, const Tensor& scales, int64_t n,
                                    const Tensor* bias, const char* op);

/// A weight in the strip layout of support/int8_gemm_f32.h holding `strips`
/// 16-column strips over K: int8 [strips, round_up(K, 2) * 16], row-major.
Error check_packed_weight(const Tensor& w, int64_t strips, int64_t k, const char* op);

/// An output: float32, row-major.
Error check_dynamic_linear_out(const Tensor& out, const char* op);

/// Scratch from ctx's temp allocator (MemoryAllocationFailed naming `op` and
/// the size when it has too little): the quantized input plus the GEMM
/// scratch for all segments' columns; the segments' GEMMs run as one split
/// over the thread pool (run_int8_gemm_f32_batch).
Error run_dynamic_linear(KernelContext& ctx, const Tensor& in,
                         Span<const DynamicLinearSegment> segments, const char* op);

}  // namespace quantized
}  // namespace torchedge
