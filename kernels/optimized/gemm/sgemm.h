// torchedge/kernels/optimized/gemm/sgemm.h
//
// Single-precision GEMM for the optimized kernels:
//
//   C[b][M x N] = act(clamp(alpha * A[b][M x K] * B[b][K x N]
//                           + beta * addend[b] + row_bias[m] + col_bias[n], min, max))
//
// for b in [0, batch), act the identity or, when `gelu` is set, the exact
// (erf) GELU. A and B are strided views, so transposed operands are
// handled by the packers, never by copies; B may instead be produced by a
// caller-supplied packer (convolution gathers im2col columns straight from
// its input, so no column matrix is ever built). C is row-major with unit
// column stride and row stride ldc.
//
// Algorithm (Goto/BLIS): the N range is cut into panels of NC columns and
// K into blocks of KC; each KC x NC panel of B is packed into NR-wide strips,
// each MC x KC block of A into MR-tall strips, and an MR x NR register-tiled
// micro-kernel (AVX2/FMA 6x16, AVX-512 12x32 over two 16-wide strips,
// scalar 4x16) runs over them.
// Threads (threadpool.h) take disjoint rectangles of C (the larger of M and
// N is split, so each thread packs only its share of the bigger operand; over
// weights prepacked in place, M goes in up to 4 rectangles per thread, taken
// as threads come free), or whole batch items when the batch divides evenly
// among them or is large.
// Packing is vectorized per ISA (both B layouts: [K, N] rows and a [N, K]
// weight read transposed), the bias/clamp epilogue too. The micro-kernel is chosen by cpu_features'
// best_isa(); the AVX-512 one is compiled on x86-64 and only entered on a
// CPU that has AVX-512 F/DQ/BW/VL.
//
// B may also come packed ahead of time (b_prepacked: a constant linear
// weight packed once, in the .pte, by python/torchedge/passes/
// weight_prepacking.py): with the micro-kernel's strip width and 64-byte
// alignment its strips are read in place and nothing of B is packed per call;
// otherwise they are repacked into the kernel's width (correct, not fast).
//
// Scratch: per thread one packed A block and one packed B panel, from the
// kernel context's temp allocator (about 1.2 MiB per thread, less for small
// problems). Returns MemoryAllocationFailed when it cannot get that much, so
// the caller can fall back to the portable kernel. Never heap-allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/optimized/cpu/cpu_features.h"
#include "runtime/core/error.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

/// Element (i, j) is data[i * row_stride + j * col_stride].
struct MatrixView {
  const float* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

/// A custom B packer: writes columns [n0, n0 + nc) of rows [k0, k0 + kc) of
/// the (virtual) K x N matrix B as ceil(nc / nr) strips; strip s holds kc
/// rows of nr floats (columns n0 + s*nr ...), columns past n0 + nc are zero.
/// Called concurrently from several threads with disjoint `dst`.
using PackBFunction = void (*)(const void* context, int64_t k0, int64_t kc, int64_t n0,
                               int64_t nc, int nr, float* dst);

struct SgemmProblem {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  MatrixView a;                 // M x K
  MatrixView b;                 // K x N (ignored when pack_b is set)
  PackBFunction pack_b = nullptr;
  const void* pack_b_context = nullptr;  // pack_b supports batch == 1 only
  // B packed ahead of time (batch == 1 only; b and pack_b are ignored then):
  // ceil(N / nr) strips one after another, strip s = K rows of nr floats
  // (columns s*nr .. s*nr + nr - 1, zero past N), so element (k, n) is
  // b_prepacked[(n / nr) * K * nr + k * nr + n % nr], nr = b_prepacked_nr.
  // Read in place (no B packing) when nr is the micro-kernel's strip width
  // (16 for every kernel) and the pointer is 64-byte aligned.
  const float* b_prepacked = nullptr;
  int64_t b_prepacked_nr = 0;
  float* c = nullptr;           // M x N, row stride ldc, column stride 1
  int64_t ldc = 0;
  int64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_c = 0;
  // Epilogue. addend is read only when beta != 0 (ATen: NaN there must not
  // leak through beta == 0); biases may be null.
  float alpha = 1.0f;
  float beta = 0.0f;
  MatrixView addend;
  int64_t batch_stride_addend = 0;
  const float* row_bias = nullptr;  // M entries
  const float* col_bias = nullptr;  // N entries
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  // The exact GELU, x / 2 * (1 + erf(x / sqrt 2)), last: on the tile while
  // it is hot (a transformer's fc1 + GELU: no second pass over its output).
  bool gelu = false;
};

/// The micro-kernel sgemm(ctx, p) runs: best_isa()'s. On the Ice Lake
/// class Xeon (AVX-512) the AVX-512 kernel (12 x 32 over two of the AVX2
/// kernel's 16-wide B strips, so both read the same prepacked weights in
/// place) was at least as fast as the AVX2 one on every shape tried,
/// alternating the two in one process with hot and with cold operands
/// (8 rotating buffer sets): MobileNetV2's 96 x 12544 x 16 0.66 -> 0.61 ms
/// hot, 1.94 -> 1.27 cold; 16 x 12544 x 32 0.19 -> 0.18 / 0.23 -> 0.19;
/// a 1 x 1000 x 1280 GEMV 0.21 -> 0.25 hot but 0.71 -> 0.50 cold (as in a
/// model). A first 6 x 32 kernel with its own 32-wide strips repacked the
/// prepacked weights on every call and lost end to end (ViT-Tiny 53.9 vs
/// 33.4 ms). The parameter stays for shape-dependent choices.
Isa sgemm_isa(const SgemmProblem& p);

/// Runs `p` with the micro-kernel of sgemm_isa(p). InvalidArgument for
/// negative sizes, a batched custom packer or prepacked B, or b_prepacked
/// with b_prepacked_nr < 1 or with pack_b; MemoryAllocationFailed when
/// scratch is short (C untouched then).
Error sgemm(KernelContext& ctx, const SgemmProblem& p);

/// The same with an explicit ISA (tests, benchmarks). NotSupported when this
/// build or CPU cannot run `isa`.
Error sgemm_with_isa(KernelContext& ctx, const SgemmProblem& p, Isa isa);

/// Bytes of temp memory sgemm(ctx, p) will take (for callers that run
/// several GEMMs on one scratch chunk: give each call a fresh KernelContext
/// over it). Depends on the thread setting and sgemm_isa(p).
size_t sgemm_scratch_bytes(const SgemmProblem& p);

namespace detail {
// One ISA's entry point (gemm/sgemm_<isa>.cpp); arguments already checked.
Error sgemm_scalar(KernelContext& ctx, const SgemmProblem& p);
Error sgemm_avx2(KernelContext& ctx, const SgemmProblem& p);
Error sgemm_avx512(KernelContext& ctx, const SgemmProblem& p);
size_t sgemm_scratch_bytes_scalar(const SgemmProblem& p);
size_t sgemm_scratch_bytes_avx2(const SgemmProblem& p);
size_t sgemm_scratch_bytes_avx512(const SgemmProblem& p);
// aarch64 only: Isa::kScalar's kernel there when best_arm_isa() allows NEON.
Error sgemm_neon(KernelContext& ctx, const SgemmProblem& p);
size_t sgemm_scratch_bytes_neon(const SgemmProblem& p);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
