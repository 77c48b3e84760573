// ISA choice, scratch sizes and the thread split of the flash attention
// (flash_attention.h).
#include "kernels/optimized/vec/flash_attention.h"

#include "kernels/optimized/threadpool/threadpool.h"

namespace torchedge {
namespace optimized {
namespace {

// The AVX-512 kernel takes every value dim that is a multiple of 16 (and
// any head dim); the generic blocks the rest.
bool use_avx512(Isa isa, int64_t value_dim) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa usable = static_cast<int>(isa) < static_cast<int>(detected_isa()) ? isa : detected_isa();
  return usable == Isa::kAvx512 && value_dim % 16 == 0;
#else
  (void)isa;
  (void)value_dim;
  return false;
#endif
}

int64_t query_block(bool avx512) { return avx512 ? kFlashQueryBlockAvx512 : kFlashQueryBlock; }

size_t slot_floats(const FlashAttentionProblem& p, bool avx512) {
#ifndef TORCHEDGE_NO_X86_SIMD
  if (avx512) return detail::flash_attention_slot_floats_avx512(p.keys, p.head_dim, p.value_dim);
#endif
  return flash_attention_scratch_floats(p.head_dim, p.value_dim);
}

}  // namespace

size_t flash_attention_scratch_floats(int64_t head_dim, int64_t value_dim) {
  // flash_attention_tile.h's layout: scores, outputs, padded key tile, max, sum.
  const int64_t outputs = (kFlashQueryBlock * value_dim + 15) / 16 * 16;
  return static_cast<size_t>(kFlashQueryBlock * kAttentionKeyTile + outputs +
                             head_dim * kAttentionKeyTile + 2 * kFlashQueryBlock);
}

FlashAttentionBlockFn flash_attention_block_fn(Isa isa, int64_t value_dim) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa usable = static_cast<int>(isa) < static_cast<int>(detected_isa()) ? isa : detected_isa();
  if (usable != Isa::kScalar && value_dim % 8 == 0) return detail::flash_attention_block_avx2;
#else
  (void)isa;
  (void)value_dim;
#endif
  return detail::flash_attention_block_scalar;
}

size_t flash_attention_scratch_bytes(const FlashAttentionProblem& p, Isa isa, int64_t threads) {
  const bool avx512 = use_avx512(isa, p.value_dim);
  const int64_t blocks = (p.queries + query_block(avx512) - 1) / query_block(avx512);
  const int64_t units = p.batch * blocks;
  const int64_t slots = units < threads ? units : threads;
  return static_cast<size_t>(slots) * slot_floats(p, avx512) * sizeof(float);
}

void flash_attention(const FlashAttentionProblem& p, Isa isa, float* scratch) {
  const bool avx512 = use_avx512(isa, p.value_dim);
  const int64_t block_rows = query_block(avx512);
  const int64_t blocks = (p.queries + block_rows - 1) / block_rows;
  const int64_t units = p.batch * blocks;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t slots = units < threads ? units : threads;
  const size_t floats = slot_floats(p, avx512);
  // Batch item whose keys each slot holds packed (AVX-512): units go batch
  // item by batch item, so a slot packs each item it meets about once.
  int64_t packed[kMaxThreads];
  for (int64_t s = 0; s < slots; ++s) packed[s] = -1;
#if defined(__aarch64__)
  const FlashAttentionBlockFn block = arm_flash_attention_block_fn(best_arm_isa(), p.value_dim);
#else
  const FlashAttentionBlockFn block = avx512 ? nullptr : flash_attention_block_fn(isa, p.value_dim);
#endif
  parallel_for_slots(0, units, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
    float* mine = scratch + static_cast<size_t>(slot) * floats;
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t b = unit / blocks, q0 = unit % blocks * block_rows;
      const int64_t q1 = q0 + block_rows < p.queries ? q0 + block_rows : p.queries;
#ifndef TORCHEDGE_NO_X86_SIMD
      if (avx512) {
        if (packed[slot] != b) {
          detail::flash_attention_pack_keys_avx512(p, b, mine);
          packed[slot] = b;
        }
        detail::flash_attention_block_avx512(p, b, q0, q1, mine);
        continue;
      }
#else
      (void)packed;
#endif
      block(p, b, q0, q1, mine);
    }
  });
}

FlashAttentionBlockFn arm_flash_attention_block_fn(ArmIsa isa, int64_t value_dim) {
  return arm_block_fn<FlashAttentionBlockFn>(
      isa, value_dim, TORCHEDGE_AARCH64_OR_NULL(&detail::flash_attention_block_neon),
      &detail::flash_attention_block_scalar);
}

}  // namespace optimized
}  // namespace torchedge
