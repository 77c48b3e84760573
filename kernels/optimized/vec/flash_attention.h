// torchedge/kernels/optimized/vec/flash_attention.h
//
// The inner loop of the optimized torchedge::attention kernel
// (kernels/optimized/ops/op_attention.cpp): full (not causal, unmasked)
// attention out = safe_softmax(q . k_t) . v, split into blocks of query
// rows of one batch item. Two block implementations: the AVX-512 kernel
// (flash_attention_avx512.cpp: keys packed once per batch item, 6-row
// register blocks, a lane-wise online softmax in base 2; see its file
// comment) and the generic one, flash_attention_tile.h over SIMD traits
// (attention_avx2.cpp and attention_scalar.cpp compile it beside
// attention_tile.h), described next.
//
// Tiled as flash attention: the keys go in tiles of kAttentionKeyTile; per
// tile the block's scores [rows][tile] are a register-tiled product of the
// query rows with the tile of k_t (already [D][S]: keys along the vector
// lanes, read in place), the rows keep the running max / sum of an online
// softmax (their output rescaled when the max grows), and P . V accumulates
// into the block's output rows. The score matrix is never materialized:
// scratch is one block's scores, outputs and statistics (~50 KiB; the
// AVX-512 kernel adds one batch item's packed keys, S x D floats), whatever
// the sequence length (Whisper's 1500 x 1500 scores per head were 9 MiB per
// head written, read and written again by bmm + softmax + bmm).
//
// Semantics as the portable kernel: a query whose every score is -inf
// (none here without a mask, but the op allows it) gives zeros, as
// aten._safe_softmax does; results agree with the unfused form to float
// rounding (the online rescaling reorders the sums).
//
// Thread-safety: functions hold no state; each concurrent call needs its own
// scratch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/vec/attention.h"

namespace torchedge {
namespace optimized {

/// Query rows per block (a thread's unit of work) of the generic block
/// (flash_attention_tile.h: AVX2, scalar).
constexpr int64_t kFlashQueryBlock = 64;
/// Query rows per block of the AVX-512 kernel (flash_attention_avx512.cpp):
/// eight register blocks of 6 rows; its queries and outputs stay in L1
/// beside a key and a value tile.
constexpr int64_t kFlashQueryBlockAvx512 = 48;

/// One torchedge::attention call's tensors (float32, contiguous).
struct FlashAttentionProblem {
  const float* q;    // [B, L, D]
  const float* k_t;  // [B, D, S]
  const float* v;    // [B, S, E]
  float* out;        // [B, L, E]
  int64_t batch, queries, keys, head_dim, value_dim;  // B, L, S, D, E
};

/// Floats of scratch one concurrent generic flash_attention_block call
/// needs (64-byte aligned).
size_t flash_attention_scratch_floats(int64_t head_dim, int64_t value_dim);

/// Rows [q0, q1) (at most kFlashQueryBlock) of batch item b into p.out.
using FlashAttentionBlockFn = void (*)(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                       int64_t q1, float* scratch);

/// Bytes of scratch flash_attention(p, isa, ...) needs at `threads` threads
/// (to be 64-byte aligned): per thread one query block's working set, and
/// with AVX-512 one batch item's packed keys (S x D floats).
size_t flash_attention_scratch_bytes(const FlashAttentionProblem& p, Isa isa, int64_t threads);

/// The whole call: p.out for every batch item, blocks of query rows of one
/// batch item split across num_threads() threads (all of them busy when
/// batch x blocks >= threads), each with its slot of `scratch`
/// (flash_attention_scratch_bytes(p, isa, num_threads()) bytes).
void flash_attention(const FlashAttentionProblem& p, Isa isa, float* scratch);

/// The generic block function for `isa` (AVX2 for value dims that are a
/// multiple of 8 when the build and CPU have it, else scalar, which takes
/// any sizes). flash_attention() uses the AVX-512 kernel instead where it
/// applies.
FlashAttentionBlockFn flash_attention_block_fn(Isa isa, int64_t value_dim);

/// The same for an ARM level (NEON where value_dim is a multiple of 4; the
/// ops pick with attention.h's active_block_fn).
FlashAttentionBlockFn arm_flash_attention_block_fn(ArmIsa isa, int64_t value_dim);

namespace detail {
// The AVX-512 kernel's slot: the packed keys of one batch item ([ceil(S /
// 64)][D][64]), then one block's queries, outputs, scores and statistics.
size_t flash_attention_slot_floats_avx512(int64_t keys, int64_t head_dim, int64_t value_dim);
// Packs batch item b's keys into `slot` (64-byte aligned).
void flash_attention_pack_keys_avx512(const FlashAttentionProblem& p, int64_t b, float* slot);
// Rows [q0, q1) (at most kFlashQueryBlockAvx512) of batch item b, whose keys
// `slot` holds packed.
void flash_attention_block_avx512(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                  int64_t q1, float* slot);
// y[i] = 2^x[i] by the softmax's exp2 (vec_math_avx512.h's
// exp2_nonpositive), for its accuracy test. AVX-512 CPUs only.
void flash_exp2_avx512(const float* x, float* y, int64_t n);
void flash_attention_block_scalar(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                  int64_t q1, float* scratch);
void flash_attention_block_avx2(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                int64_t q1, float* scratch);
void flash_attention_block_neon(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                int64_t q1, float* scratch);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
