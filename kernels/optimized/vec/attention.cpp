// ISA choice, scratch size and the merge of split key ranges of the
// attention block (attention.h).
#include "kernels/optimized/vec/attention.h"

#include <cmath>
#include <limits>

namespace torchedge {
namespace optimized {
namespace {

int64_t round_up16(int64_t n) { return (n + 15) / 16 * 16; }

}  // namespace

size_t attention_scratch_floats(int64_t heads, int64_t head_rows, int64_t head_dim) {
  // attention_tile.h's layout: queries, outputs, one head's scores, key
  // tile, max, sum.
  const int64_t rows = heads * head_rows;
  return static_cast<size_t>(2 * round_up16(rows * head_dim) + head_rows * kAttentionKeyTile +
                             round_up16(head_dim) * kAttentionKeyTile + 2 * round_up16(rows));
}

AttentionBlockFn attention_block_fn(Isa isa, int64_t head_dim) {
#ifndef TORCHEDGE_NO_X86_SIMD
  const Isa usable = static_cast<int>(isa) < static_cast<int>(detected_isa()) ? isa : detected_isa();
  if (usable == Isa::kAvx512 && head_dim % 16 == 0) return detail::attention_block_avx512;
  if (usable != Isa::kScalar && head_dim % 8 == 0) return detail::attention_block_avx2;
#else
  (void)isa;
  (void)head_dim;
#endif
  return detail::attention_block_scalar;
}

AttentionBlockFn arm_attention_block_fn(ArmIsa isa, int64_t head_dim) {
  return arm_block_fn<AttentionBlockFn>(isa, head_dim,
                                        TORCHEDGE_AARCH64_OR_NULL(&detail::attention_block_neon),
                                        &detail::attention_block_scalar);
}

void merge_attention_partials(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,
                              int64_t t0, int64_t t1, const AttentionPartial* parts, int64_t count) {
  const int64_t groups = p.q_heads / p.kv_heads, dim = p.head_dim, head_rows = (t1 - t0) * groups;
  for (int64_t ht = 0; ht < (h1 - h0) * (t1 - t0); ++ht) {
    const int64_t h = h0 + ht / (t1 - t0), t = t0 + ht % (t1 - t0);
    float* dst = p.out + ((b * p.tokens + t) * p.q_heads + h * groups) * dim;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t r = (h - h0) * head_rows + (t - t0) * groups + g;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t c = 0; c < count; ++c) max = parts[c].max[r] > max ? parts[c].max[r] : max;
      float sum = 0.0f;
      for (int64_t i = 0; i < dim; ++i) dst[g * dim + i] = 0.0f;
      for (int64_t c = 0; c < count; ++c) {
        if (parts[c].sum[r] == 0.0f) continue;  // no visible key in this range
        const float weight = std::exp(parts[c].max[r] - max);
        sum += parts[c].sum[r] * weight;
        const float* o = parts[c].out + r * dim;
        for (int64_t i = 0; i < dim; ++i) dst[g * dim + i] += o[i] * weight;
      }
      const float inv = 1.0f / sum;
      for (int64_t i = 0; i < dim; ++i) dst[g * dim + i] *= inv;
    }
  }
}

}  // namespace optimized
}  // namespace torchedge
