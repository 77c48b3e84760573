// torchedge/kernels/optimized/vec/flash_attention.h
//
// The inner loop of the optimized torchedge::attention kernel
// (kernels/optimized/ops/op_attention.cpp): full (not causal, unmasked)
// attention out = safe_softmax(q . k_t) . v of one block of query rows of
// one batch item, one implementation per ISA (the attention_{scalar,avx2,
// avx512}.cpp units compile flash_attention_tile.h beside attention_tile.h).
//
// Tiled as flash attention: the keys go in tiles of kAttentionKeyTile; per
// tile the block's scores [rows][tile] are a register-tiled product of the
// query rows with the tile of k_t (already [D][S]: keys along the vector
// lanes, read in place), the rows keep the running max / sum of an online
// softmax (their output rescaled when the max grows), and P . V accumulates
// into the block's output rows. The score matrix is never materialized:
// scratch is one block's scores, outputs and statistics (~50 KiB), whatever
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

/// Query rows per block (a thread's unit of work).
constexpr int64_t kFlashQueryBlock = 64;

/// One torchedge::attention call's tensors (float32, contiguous).
struct FlashAttentionProblem {
  const float* q;    // [B, L, D]
  const float* k_t;  // [B, D, S]
  const float* v;    // [B, S, E]
  float* out;        // [B, L, E]
  int64_t queries, keys, head_dim, value_dim;  // L, S, D, E
};

/// Floats of scratch one concurrent flash_attention_block call needs
/// (64-byte aligned).
size_t flash_attention_scratch_floats(int64_t head_dim, int64_t value_dim);

/// Rows [q0, q1) (at most kFlashQueryBlock) of batch item b into p.out.
using FlashAttentionBlockFn = void (*)(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                       int64_t q1, float* scratch);

/// The block function for `isa` (an ISA this build or CPU lacks, or a value
/// dim that is not a multiple of its vector width, gives a narrower one; the
/// scalar one takes any sizes).
FlashAttentionBlockFn flash_attention_block_fn(Isa isa, int64_t value_dim);

/// The same for an ARM level (NEON where value_dim is a multiple of 4; the
/// ops pick with attention.h's active_block_fn).
FlashAttentionBlockFn arm_flash_attention_block_fn(ArmIsa isa, int64_t value_dim);

namespace detail {
void flash_attention_block_scalar(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                  int64_t q1, float* scratch);
void flash_attention_block_avx2(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                int64_t q1, float* scratch);
void flash_attention_block_avx512(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                  int64_t q1, float* scratch);
void flash_attention_block_neon(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                int64_t q1, float* scratch);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
