#include "backends/vulkan/pool_plan.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace vulkan {

namespace {

struct Lifetime {
  uint32_t first = 0xFFFFFFFFu;
  uint32_t last = 0;
};

}  // namespace

uint64_t region_bytes(const TensorInfo& t, uint64_t alignment, bool float32_as_float16) {
  const uint64_t bytes = device_bytes(t, float32_as_float16);
  return (bytes + alignment - 1) / alignment * alignment;
}

Result<PoolPlan> plan_pool(const ParsedBlob& blob, uint64_t alignment, bool float32_as_float16,
                           MemoryAllocator* allocator) {
  const uint32_t n = blob.num_tensors;
  uint64_t* offsets = allocator->allocate_array<uint64_t>(n);
  Lifetime* life = allocator->allocate_array<Lifetime>(n);
  uint32_t* placed = allocator->allocate_array<uint32_t>(n);
  TE_CHECK_OR_RETURN(offsets != nullptr && life != nullptr && placed != nullptr,
                     Error::MemoryAllocationFailed,
                     "vulkan delegate: method allocator exhausted planning %u tensors", n);
  for (uint32_t i = 0; i < n; ++i) life[i] = Lifetime{};
  for (uint32_t k = 0; k < blob.num_ops; ++k) {
    for (uint32_t s = 0; s < blob.ops[k].num_ids; ++s) {
      const uint32_t id = blob.ops[k].ids[s];
      if (id == kNoTensor) continue;
      Lifetime& l = life[blob.tensors[id].alias_of];
      if (l.first > k) l.first = k;
      if (l.last < k) l.last = k;
    }
  }
  // Dedicated regions first, in id order.
  PoolPlan plan;
  uint64_t end = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const TensorInfo& t = blob.tensors[i];
    if (t.kind == TensorKind::Internal || t.kind == TensorKind::Alias) continue;
    offsets[i] = end;
    end += region_bytes(t, alignment, float32_as_float16);
    if (t.kind == TensorKind::Constant) {
      plan.constant_bytes += region_bytes(t, alignment, float32_as_float16);
    }
  }
  const uint64_t internal_base = end;
  // Internal tensors, first fit among those whose lifetimes overlap.
  uint32_t num_placed = 0;
  uint64_t internal_end = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const TensorInfo& t = blob.tensors[i];
    if (t.kind != TensorKind::Internal) continue;
    const uint64_t size = region_bytes(t, alignment, float32_as_float16);
    uint64_t best = UINT64_MAX;
    // Candidates: 0 and the end of every overlapping placed tensor.
    for (uint32_t c = 0; c <= num_placed; ++c) {
      uint64_t candidate = 0;
      if (c < num_placed) {
        const uint32_t o = placed[c];
        if (life[o].last < life[i].first || life[i].last < life[o].first) continue;
        candidate = offsets[o] - internal_base + region_bytes(blob.tensors[o], alignment, float32_as_float16);
      }
      if (candidate >= best) continue;
      bool fits = true;
      for (uint32_t q = 0; q < num_placed && fits; ++q) {
        const uint32_t o = placed[q];
        if (life[o].last < life[i].first || life[i].last < life[o].first) continue;
        const uint64_t o_start = offsets[o] - internal_base;
        const uint64_t o_end = o_start + region_bytes(blob.tensors[o], alignment, float32_as_float16);
        fits = candidate + size <= o_start || o_end <= candidate;
      }
      if (fits) best = candidate;
    }
    offsets[i] = internal_base + best;
    if (best + size > internal_end) internal_end = best + size;
    placed[num_placed++] = i;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (blob.tensors[i].kind == TensorKind::Alias) offsets[i] = offsets[blob.tensors[i].alias_of];
  }
  plan.offsets = offsets;
  plan.internal_bytes = internal_end;
  plan.pool_bytes = internal_base + internal_end;
  if (plan.pool_bytes == 0) plan.pool_bytes = alignment;
  return plan;
}

}  // namespace vulkan
}  // namespace torchedge
