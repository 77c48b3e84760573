// torchedge/kernels/quantized/support/int8_gemm_dot.h
//
// torchedge::quantized_linear's int8 GEMM (support/int8_gemm.h's sums and
// requantize(), bit for bit) on AArch64's dot-product instructions: built
// on aarch64 only (support/arm/int8_gemm_dotprod.cpp, compiled for
// armv8.2-a+dotprod) and entered when best_arm_isa() >= kDotProd.
//
// The raw int8 activations xq [M, K] are packed once per call into 8-row
// blocks of 16-k chunks ([M / 8][K / 16][2 x 4 rows][4 quads] rows x 4 k,
// zeros past M and K); the weights [N, K] are read as they are. A tile of
// 8 rows x 8 columns holds 16 int32x4 sums (4 rows of one column each):
// per 16 k, 8 activation loads, 8 weight loads (one column's 16 bytes = 4
// quads) and 64 sdot by element (vdotq_laneq_s32, the weight quad in a
// lane). sum_k (xq - zx) w = sum_k xq w - zx sum_k w[n], exact in int32,
// with the column sums sum_k w[n] the program stores (quantized_linear's
// weight_sums, computed once at export) or, for programs without them,
// summed once per call; then requantize() on 4 lanes (arm/requantize_neon.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/int8_gemm.h"

namespace torchedge {
namespace quantized {

/// Scratch bytes of run_int8_gemm_dot for an [m, k] x [n, k] product.
size_t int8_gemm_dot_scratch_bytes(int64_t m, int64_t n, int64_t k);

/// p's output from the raw activations xq [p.m, p.k] and their zero point
/// (p.x is not read), over the shared thread pool. weight_sums: int32
/// [p.n], sum_k p.w[n, k] (trusted, as the weights are), or nullptr to sum
/// them here. scratch: int8_gemm_dot_scratch_bytes(p.m, p.n, p.k) bytes,
/// 64-byte aligned.
void run_int8_gemm_dot(const Int8GemmProblem& p, const int8_t* xq, int32_t x_zero_point,
                       const int32_t* weight_sums, void* scratch);

/// Products of fewer rows than this take run_int8_gemv_dot at both levels
/// (an 8-row block, or SMMLA's 2-row steps, would mostly multiply padding).
constexpr int64_t kInt8GemvRows = 4;

/// The same product row by row (any M; run_int8_gemm_dot and
/// run_int8_gemm_i8mm route M < kInt8GemvRows here): each row's 16 bytes
/// against each weight column's 16 in one sdot (vdotq_s32), 8 columns per
/// tile, the weights read as they are and the activations not packed.
/// scratch: at least 4 * p.n bytes, 64-byte aligned (both scratch sizes
/// above are enough).
void run_int8_gemv_dot(const Int8GemmProblem& p, const int8_t* xq, int32_t x_zero_point,
                       const int32_t* weight_sums, void* scratch);

/// corrections[n] = zx * sum_k w[n, k] for n < p.n, from weight_sums when
/// not nullptr (dot-product level; the i8mm kernel shares it).
void int8_gemm_zero_point_corrections(const Int8GemmProblem& p, int32_t zx,
                                      const int32_t* weight_sums, int32_t* corrections);

/// The same product with SMMLA (vmmlaq_s32: a 2 x 8 by 8 x 2 int8 block
/// per instruction), support/arm/int8_gemm_i8mm.cpp, compiled for
/// armv8.2-a+dotprod+i8mm and entered when best_arm_isa() >= kI8mm. The
/// activations are packed into 8-row blocks of 8-k steps, each step 4 row
/// pairs x 8 k ([M / 8][K / 8][4][2 x 8], zeros past M and K); a column
/// pair's 8 k are two 8-byte loads of the weights as they are. A tile of
/// 8 rows x 8 columns holds 16 int32x4 sums (2 rows x 2 columns each): per
/// 8 k, 4 activation loads, 8 weight loads and 16 smmla (1024 multiply-adds
/// per 16 k in 56 instructions, against 80 for sdot). Sums, corrections and
/// requantization as run_int8_gemm_dot: bit for bit the same output.
size_t int8_gemm_i8mm_scratch_bytes(int64_t m, int64_t n, int64_t k);
void run_int8_gemm_i8mm(const Int8GemmProblem& p, const int8_t* xq, int32_t x_zero_point,
                        const int32_t* weight_sums, void* scratch);

}  // namespace quantized
}  // namespace torchedge
