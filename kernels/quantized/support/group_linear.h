// torchedge/kernels/quantized/support/group_linear.h
//
// The decoder-LLM linear layers whose activations are quantized per group:
// torchedge::linear_q4a.out (4-bit affine weights, GGUF Q4_1's arithmetic)
// and torchedge::linear_q8c.out (int8 per-channel weights). Contract and
// eager references: python/torchedge/quantization/affine4_linear.py and
// int8_channel_linear.py.
//
// Weights (plain layouts, read in place; nothing is repacked ahead of time):
//   kAffine4      codes uint8 [N, K/2], byte[n, i] = q[n, 2i] | q[n, 2i+1] << 4,
//                 q in [0, 15]; scales, mins float16 [N, K/g];
//                 w[n, k] = q * scale[n, k/g] + min[n, k/g]
//   kInt8Channel  codes int8 [N, K]; row_scales float32 [N]; w = q * scale[n]
// g (group_size) in {32, 64, 128, 256}, K % g == 0.
//
// Activations (activation_bits):
//   32  float32: out = x @ W^T + bias, the weights dequantized on the fly.
//    8  each row x [K] is quantized per group j of g values along K as eager
//       does: s_j = max|x| / 127 (a float division), xq = clamp(nearbyint(x /
//       (s_j > 0 ? s_j : 1)), -127, 127); then with exact int32 sums
//       D_j = sum xq * q and Sx_j = sum xq:
//         kAffine4      out = sum_j s_j * (scale_j * D_j + min_j * Sx_j) + bias
//         kInt8Channel  out = scale[n] * sum_j s_j * D_j + bias
//       A group holding NaN or +-inf has s_j = NaN (eager's output is NaN
//       there too).
// Outputs equal eager's up to float summation order (tests: 1e-5 of
// sum |x * w|); every ISA gives the same integers. For a given M the
// result does not depend on the thread count (each output is computed by
// the same instructions whichever thread computes it), but a few rows
// (decode) and more (prefill) take different loops with different float
// summation orders.
//
// Loops (support/group_linear_dispatch.cpp picks them):
//   M <= group_gemv_rows()  GEMV over the plain layout, SIMD lanes along K
//     (support/x86/group_gemv_*): streams the weights once (decode); N split
//     across the shared thread pool.
//   larger M               per call, strips of 32 (AVX-512) or 8 / 16 (AVX2
//     int8 / float) output columns are unpacked into a per-worker panel with
//     lanes along N (int8: one code byte per k, K quads interleaved; float:
//     the dequantized weights), then register tiles of rows x the strip do
//     vpdpbusd / vpmaddubsw (int8) or FMA (float) (support/x86/group_gemm_*);
//     the strips are split across the pool, each worker unpacking its own.
//   scalar                 support/group_linear_scalar.cpp, any M.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {

enum class GroupWeightFormat { kAffine4, kInt8Channel };

struct GroupLinearWeight {
  GroupWeightFormat format;
  const uint8_t* codes;      // kAffine4: [N, K/2] nibbles; kInt8Channel: int8 [N, K]
  const uint16_t* scales16;  // kAffine4: float16 bits [N, K/g]
  const uint16_t* mins16;    // kAffine4: float16 bits [N, K/g]
  const float* row_scales;   // kInt8Channel: [N]
  int64_t n, k, group_size;

  int64_t groups() const { return k / group_size; }
};

/// One call: float32 x [M, K] (row-major) -> out [M, N] (row-major, must
/// not overlap x); bias [N] or nullptr; activation_bits 8 or 32. Every
/// pointer is borrowed for the call.
struct GroupLinearCall {
  const float* x;
  int64_t m;
  int activation_bits;
  GroupLinearWeight weight;
  const float* bias;
  float* out;
};

/// Rows up to which the GEMV loops can run; group_gemv_rows(isa) is where
/// they do (decode), more rows take the GEMM.
constexpr int64_t kGroupGemvMaxRows = 4;

/// The GEMM's per-call unpacking of a 32-column strip costs about as much
/// as 4-5 rows of its products (AVX-512) or 6 (AVX2), while the GEMV's cost
/// grows by one pass of dot products per row: hot 576 x 576 on AMD Zen 5,
/// GEMV M = 3 / 4 14 / 18.5 us vs GEMM ~14.5 us (AVX-512 VNNI); AVX2 GEMV
/// M = 4 22.5 us vs GEMM ~25 us.
inline int64_t group_gemv_rows(QuantIsa isa) { return isa == QuantIsa::kAvx512Vnni ? 3 : 4; }

/// Bytes of scratch run_group_linear needs with `isa` on `threads` threads
/// (one block, 64-byte aligned).
size_t group_linear_scratch_bytes(const GroupLinearCall& call, QuantIsa isa, size_t threads);

/// Computes call.out with the loops of `isa` (at most quant_isa(); tests
/// pass lower ones) on the shared pool. `threads` >= num_threads(): the
/// value the scratch was sized with. K == 0 writes the bias (or zeros).
void run_group_linear(const GroupLinearCall& call, QuantIsa isa, size_t threads, void* scratch);

/// The activation quantizer of activation_bits 8 (exposed for tests and
/// benchmarks): rows x [M, K] -> q [M, K], s [M, K/g], sums [M, K/g], as
/// the header says. Bit-identical on every ISA.
void quantize_rows_per_group(const float* x, int64_t m, int64_t k, int64_t group_size, int8_t* q,
                             float* s, int32_t* sums, QuantIsa isa);

}  // namespace quantized
}  // namespace torchedge
