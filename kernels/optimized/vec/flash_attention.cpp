// ISA choice and scratch size of the flash attention block (flash_attention.h).
#include "kernels/optimized/vec/flash_attention.h"

namespace torchedge {
namespace optimized {

size_t flash_attention_scratch_floats(int64_t head_dim, int64_t value_dim) {
  // flash_attention_tile.h's layout: scores, outputs, padded key tile, max, sum.
  const int64_t outputs = (kFlashQueryBlock * value_dim + 15) / 16 * 16;
  return static_cast<size_t>(kFlashQueryBlock * kAttentionKeyTile + outputs +
                             head_dim * kAttentionKeyTile + 2 * kFlashQueryBlock);
}

FlashAttentionBlockFn flash_attention_block_fn(Isa isa, int64_t value_dim) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa usable = static_cast<int>(isa) < static_cast<int>(detected_isa()) ? isa : detected_isa();
  if (usable == Isa::kAvx512 && value_dim % 16 == 0) return detail::flash_attention_block_avx512;
  if (usable != Isa::kScalar && value_dim % 8 == 0) return detail::flash_attention_block_avx2;
#else
  (void)isa;
  (void)value_dim;
#endif
  return detail::flash_attention_block_scalar;
}

FlashAttentionBlockFn arm_flash_attention_block_fn(ArmIsa isa, int64_t value_dim) {
  return arm_block_fn<FlashAttentionBlockFn>(
      isa, value_dim, TORCHEDGE_AARCH64_OR_NULL(&detail::flash_attention_block_neon),
      &detail::flash_attention_block_scalar);
}

}  // namespace optimized
}  // namespace torchedge
