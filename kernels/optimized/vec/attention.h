// torchedge/kernels/optimized/vec/attention.h
//
// The inner loop of the optimized sdpa_kv_cache kernel
// (kernels/optimized/ops/op_sdpa_kv_cache.cpp): causal attention of one block
// of query rows over a range of KV-cache rows, one implementation per ISA
// (attention_{scalar,avx2,avx512}.cpp over the shared algorithm in
// attention_tile.h).
//
// A block is one batch item b, kv heads [h0, h1) and the query tokens
// [t0, t1): its rows are, per kv head, the Hq / Hkv query heads that share
// it times the tokens (row r = (h - h0) * head_rows + (t - t0) * groups + g),
// so every key and value row is read once per block, for all of them.
// Query t sees cache rows j <= start + t. Per key tile the block's kv heads
// are taken in turn, so a block of every head (decode) reads the caches'
// rows front to back: one head's rows alone are a strided pattern (its
// D floats every Hkv * D) that ran at half the bandwidth on long caches.
// Keys go in tiles of kAttentionKeyTile: each tile of K is transposed once
// into scratch ([D][tile], keys along the vector lanes) so a score vector is
// D broadcast-FMAs per row; scores take the running max / sum of an online
// softmax (the output rows rescaled when the max grows), then P . V
// accumulates into the block's output rows.
//
// Partial results: a block may cover only keys [j_begin, j_end) (the
// driver splits long caches across threads when there are fewer blocks than
// threads, as in decode); it then leaves, per row, the running max m, the
// sum l of exp(score - m) and the unnormalized output O, and
// merge_attention_partials() combines the pieces. A row with no visible key
// in the range has m = -inf, l = 0, O = 0.
//
// Thread-safety: functions hold no state; each concurrent call needs its own
// scratch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/cpu/cpu_features.h"

namespace torchedge {
namespace optimized {

/// Keys per tile (a multiple of every ISA's vector width).
constexpr int64_t kAttentionKeyTile = 64;

/// One sdpa_kv_cache call's tensors (all float32, dense) and sizes.
struct AttentionProblem {
  const float* q;        // [B, T, Hq, D]
  const float* k_cache;  // [B, S, Hkv, D] (already holding this call's rows)
  const float* v_cache;  // [B, S, Hkv, D]
  float* out;            // [B, T, Hq, D]
  int64_t tokens, q_heads, kv_heads, head_dim, context;
  int64_t start;
  float scale;
};

/// Rows [0, rows) of a block's result when it is kept unnormalized.
struct AttentionPartial {
  float* max;  // [rows]
  float* sum;  // [rows]
  float* out;  // [rows, D]
};

/// Floats of scratch one concurrent attention_block call needs for a block
/// of `heads` kv heads with `head_rows` query rows each (64-byte aligned).
size_t attention_scratch_floats(int64_t heads, int64_t head_rows, int64_t head_dim);

/// One block over keys [j_begin, j_end) (clipped to what each row may see).
/// With `partial` null, writes the block's normalized rows into p.out;
/// otherwise into *partial. `scratch` holds attention_scratch_floats(h1 -
/// h0, (t1 - t0) * Hq / Hkv, D) floats, 64-byte aligned.
using AttentionBlockFn = void (*)(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                                  int64_t t0, int64_t t1, int64_t j_begin, int64_t j_end,
                                  float* scratch, const AttentionPartial* partial);

/// The block function for `isa` (an ISA this build or CPU lacks, or a head
/// dim that is not a multiple of its vector width, gives a narrower one;
/// the scalar one takes any D).
AttentionBlockFn attention_block_fn(Isa isa, int64_t head_dim);

/// The same for an ARM level: NEON from kNeon up (never above
/// detected_arm_isa()) where head_dim is a multiple of 4, else scalar.
AttentionBlockFn arm_attention_block_fn(ArmIsa isa, int64_t head_dim);


/// The ARM choice of both block kinds: `neon` (null off aarch64:
/// TORCHEDGE_AARCH64_OR_NULL) from kNeon up where `dim` is a multiple of its
/// 4 lanes, else `scalar`.
#if defined(__aarch64__)
#define TORCHEDGE_AARCH64_OR_NULL(fn) (fn)
#else
#define TORCHEDGE_AARCH64_OR_NULL(fn) nullptr
#endif
template <typename Fn>
Fn arm_block_fn(ArmIsa isa, int64_t dim, Fn neon, Fn scalar) {
  return neon != nullptr && usable_arm_isa(isa) >= ArmIsa::kNeon && dim % 4 == 0 ? neon : scalar;
}

/// What the ops run, for either block kind: x86(best_isa(), dim) on x86
/// builds, arm(best_arm_isa(), dim) on aarch64.
template <typename Fn>
Fn active_block_fn(Fn (*x86)(Isa, int64_t), Fn (*arm)(ArmIsa, int64_t), int64_t dim) {
#if defined(__aarch64__)
  (void)x86;
  return arm(best_arm_isa(), dim);
#else
  (void)arm;
  return x86(best_isa(), dim);
#endif
}

/// Normalized rows of block (b, [h0, h1), [t0, t1)) into p.out from
/// `count` partials (key ranges of one block; each row visible in at least
/// one).
void merge_attention_partials(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                              int64_t t0, int64_t t1, const AttentionPartial* parts, int64_t count);

namespace detail {
void attention_block_scalar(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                            int64_t t0, int64_t t1, int64_t j_begin, int64_t j_end, float* scratch,
                            const AttentionPartial* partial);
void attention_block_avx2(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                          int64_t t0, int64_t t1, int64_t j_begin, int64_t j_end, float* scratch,
                          const AttentionPartial* partial);
void attention_block_avx512(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                            int64_t t0, int64_t t1, int64_t j_begin, int64_t j_end, float* scratch,
                            const AttentionPartial* partial);
void attention_block_neon(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                          int64_t t0, int64_t t1, int64_t j_begin, int64_t j_end, float* scratch,
                          const AttentionPartial* partial);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
