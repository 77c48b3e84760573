// torchedge/kernels/optimized/gemm/sgemm_amx.h
//
// A float32 GEMM on the AMX tile unit, float32-accurate, for linear layers
// with weights prepacked in the SGEMM's 16-wide strips (sgemm.h,
// b_prepacked):
//
//   C[M x N] = act((A[M x K] * B[K x N] + col_bias[n]) + beta * addend)
//
// Each float32 operand is split into three bfloat16 terms, x = x0 + x1 + x2
// (x0 the top 8 significant bits by truncation, x1 the next 8 of the exact
// remainder, x2 the rest, all exact), and the product is the sum of the six
// tile products whose terms reach 2^-16 of the leading one: A0 B0, A0 B1,
// A0 B2, A1 B1, A1 B0, A2 B0 (TDPBF16PS: bf16 x bf16 is exact in float32,
// sums accumulate in float32). The dropped terms are ~2^-24 relative, so
// results differ from the float32 SGEMM's like a different summation order
// (gemm test: within 2e-6 of the largest |value| on K up to 1024).
//
// Per call, B's strips are split into three planes of VNNI pairs (one
// 16-column x 32-k tile contiguous, K and N zero-padded to 32); A is split
// per 128-row panel into three tile-major planes; 2 x 2 accumulator tiles
// (32 x 32 of C) run the six products per 32 k with each A term loaded
// once, then the epilogue (bias, addend, GELU, as sgemm.h orders it) is
// applied while the tile is stored. Panels are split across threads, or,
// below two panels per thread, 32-column blocks (each worker splits its own
// strips of B and every panel of A: amx_layout::split_columns).
// `build/amx_f32_gemm_bench` and docs/benchmarks.md have the measurements
// (1.8-2x the AVX-512 SGEMM on Whisper's linear layers, B's split included;
// the encoder 0.84x / 0.86x the time at 1 / 2 threads in alternated runs).
//
// Scratch (the kernel context's temp allocator): B's planes (6 K N bytes)
// and one A panel per worker (768 K bytes; fewer workers than threads when
// the allocator is short). Never heap-allocates.
#pragma once

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/gemm/sgemm.h"

namespace torchedge {
namespace optimized {

/// Rows below which the AMX path is not taken: splitting B per call costs
/// about as much as 64 rows of products. Whole programs against 256, the
/// binaries alternated (1 / 2 threads): ViT-S/16 (197 tokens) 0.80x / 0.83x
/// the time, BERT at 128 tokens 0.81x / 0.86x, ConvNeXt-T (196-row stage)
/// 0.89x / 0.94x; 32 (ConvNeXt's 49-row stage too) was level with 128.
constexpr int64_t kSgemmAmxMinRows = 128;

/// Whether sgemm_amx can run `p`: amx_usable(), one batch item of at least
/// kSgemmAmxMinRows rows, B prepacked in 16-wide strips, A and the addend
/// with unit column stride, alpha 1, beta 0 or 1, no row bias, no clamp, and
/// C overlapping neither A nor the addend (sgemm_amx may have written C
/// when it declines on a value it cannot split, and the caller then
/// recomputes it from them).
bool sgemm_amx_applies(const SgemmProblem& p);

/// Runs `p` (sgemm_amx_applies(p) must hold). NotSupported when A or B
/// holds an infinity or NaN (their split would turn inf into NaN) or a
/// subnormal (the tile unit reads it as zero); C may have been partly
/// written: run sgemm() instead. MemoryAllocationFailed
/// (C untouched) when the temp allocator is short.
Error sgemm_amx(KernelContext& ctx, const SgemmProblem& p);

/// Bytes of temp memory sgemm_amx(ctx, p) takes at the current thread
/// setting (it runs on fewer workers in less, down to one A panel's worth).
size_t sgemm_amx_scratch_bytes(const SgemmProblem& p);

}  // namespace optimized
}  // namespace torchedge
