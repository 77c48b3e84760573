// torchedge::sdpa_kv_cache.out(Tensor q, Tensor k, Tensor v, Tensor k_cache,
//     Tensor v_cache, Tensor start_pos, float scale, *, Tensor(a!) out,
//     Tensor(b!) k_cache_out, Tensor(c!) v_cache_out)
//
// Causal attention over a KV cache (python/torchedge/llm/ops.py): rows
// [p, p + T) of each cache (p = start_pos[0]) become k / v, then query t of
// head h attends to cache rows [0, p + t] of kv head h / (Hq / Hkv):
//   out[b, t, h] = softmax_j(scale * q . k_cache[b, j]) @ v_cache[b, j]
// The output caches are written in place when the memory plan aliases them
// with the inputs (only T rows are touched), else the input caches are
// copied first (support/decoder_op_args.h). Reference loops: per query row,
// scores in float32, the row max subtracted before exp (eager's softmax),
// then the weighted sum of value rows. Scratch: p + T floats (temp
// allocator); MemoryAllocationFailed names the bytes when it is missing.
#include <cmath>
#include <limits>

#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// One query row: out[d] = sum_j softmax(scores)_j * values[j][d] over `length` keys.
void attend_row(const SdpaKvCacheCall& call, const float* q, int64_t b, int64_t kv_head,
                int64_t length, float* scores, float* out) {
  const int64_t dim = call.head_dim;
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < length; ++j) {
    const float* key = call.k_cache + call.cache_offset(b, j, kv_head);
    float dot = 0.0f;
    for (int64_t i = 0; i < dim; ++i) dot += q[i] * key[i];
    scores[j] = dot * call.scale;
    max = scores[j] > max ? scores[j] : max;
  }
  float sum = 0.0f;
  for (int64_t j = 0; j < length; ++j) {
    scores[j] = std::exp(scores[j] - max);
    sum += scores[j];
  }
  for (int64_t i = 0; i < dim; ++i) out[i] = 0.0f;
  for (int64_t j = 0; j < length; ++j) {
    const float* value = call.v_cache + call.cache_offset(b, j, kv_head);
    const float weight = scores[j] / sum;
    for (int64_t i = 0; i < dim; ++i) out[i] += weight * value[i];
  }
}

}  // namespace

Error sdpa_kv_cache_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(const SdpaKvCacheCall call, parse_sdpa_kv_cache_args(args));
  const size_t longest = static_cast<size_t>(call.start + call.tokens);
  float* scores = static_cast<float*>(ctx.allocate_temp(longest * sizeof(float) + sizeof(float)));
  TE_CHECK_OR_RETURN(scores != nullptr, Error::MemoryAllocationFailed,
                     "sdpa_kv_cache.out: needs %zu bytes of kernel scratch (temp allocator)",
                     longest * sizeof(float) + sizeof(float));
  update_kv_caches(call);
  const int64_t group = call.q_heads / call.kv_heads, dim = call.head_dim;
  for (int64_t b = 0; b < call.batch; ++b) {
    for (int64_t t = 0; t < call.tokens; ++t) {
      for (int64_t h = 0; h < call.q_heads; ++h) {
        const int64_t row = ((b * call.tokens + t) * call.q_heads + h) * dim;
        attend_row(call, call.q + row, b, h / group, call.start + t + 1, scores, call.out + row);
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
