// torchedge::sdpa_kv_cache.out(Tensor q, Tensor k, Tensor v, Tensor k_cache,
//     Tensor v_cache, Tensor start_pos, float scale, *, Tensor(a!) out,
//     Tensor(b!) k_cache_out, Tensor(c!) v_cache_out)
//
// The portable kernel's contract and checks (kernels/portable/
// op_sdpa_kv_cache.cpp, support/decoder_op_args.h) with the attention of
// vec/attention.h: the query heads sharing a kv head and up to
// kTargetRows / groups tokens form one block's rows per kv head, so K and V
// rows are read once per block; when that leaves few rows (decode: the
// groups heads of one token), one block takes several kv heads, all of them
// for SmolLM2, so the cache is read front to back. Blocks run on the shared
// thread pool. When there are fewer blocks than a few per thread (decode:
// one) and the cache is long, each block's keys are split into ranges run as
// separate work items whose online-softmax states are merged afterwards.
// Scratch (temp allocator): attention_scratch_floats(...) floats per worker
// plus rows * (D + 2) floats per split range.
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/attention.h"
#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {
namespace {

// Query rows per block: enough to amortize one key tile's transpose, few
// enough that the block's rows stay in L1 next to the tile.
constexpr int64_t kTargetRows = 48;
// Keys per split range at least (below this a range costs less than a
// thread handoff).
constexpr int64_t kMinSplitKeys = 256;
constexpr int64_t kMaxSplits = 64;

struct Schedule {
  int64_t tokens_per_block, blocks_per_head;
  int64_t heads_per_block, head_groups;
  int64_t items, splits;
  int64_t head_rows, rows;  // query rows per kv head and per block
};

Schedule schedule_for(const SdpaKvCacheCall& call) {
  Schedule s;
  const int64_t groups = call.q_heads / call.kv_heads;
  s.tokens_per_block = kTargetRows / groups < 1 ? 1 : kTargetRows / groups;
  if (s.tokens_per_block > call.tokens) s.tokens_per_block = call.tokens;
  s.blocks_per_head = (call.tokens + s.tokens_per_block - 1) / s.tokens_per_block;
  s.head_rows = s.tokens_per_block * groups;
  s.heads_per_block = kTargetRows / s.head_rows < 1 ? 1 : kTargetRows / s.head_rows;
  if (s.heads_per_block > call.kv_heads) s.heads_per_block = call.kv_heads;
  s.head_groups = (call.kv_heads + s.heads_per_block - 1) / s.heads_per_block;
  s.rows = s.heads_per_block * s.head_rows;
  s.items = call.batch * s.head_groups * s.blocks_per_head;
  s.splits = 1;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t keys = call.start + call.tokens;
  if (threads > 1 && s.items < 4 * threads) {
    const int64_t wanted = (4 * threads + s.items - 1) / s.items;
    const int64_t most = keys / kMinSplitKeys;
    s.splits = wanted < most ? wanted : most;
    if (s.splits > kMaxSplits) s.splits = kMaxSplits;
    if (s.splits < 1) s.splits = 1;
  }
  return s;
}

}  // namespace

Error sdpa_kv_cache_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "sdpa_kv_cache.out";
  TE_ASSIGN_OR_RETURN(const SdpaKvCacheCall call, parse_sdpa_kv_cache_args(args));
  update_kv_caches(call);
  if (call.batch == 0 || call.tokens == 0 || call.q_heads == 0 || call.head_dim == 0) return Error::Ok;
  const Schedule s = schedule_for(call);
  const int64_t units = s.items * s.splits;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t slots = units < threads ? units : threads;
  const size_t slot_floats = attention_scratch_floats(s.heads_per_block, s.head_rows, call.head_dim);
  const size_t partial_floats =
      s.splits > 1 ? static_cast<size_t>(units * s.rows * (call.head_dim + 2)) : 0;
  const size_t bytes = (static_cast<size_t>(slots) * slot_floats + partial_floats) * sizeof(float);
  float* scratch = static_cast<float*>(ctx.allocate_temp(bytes, 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp, bytes);
  float* partials = scratch + static_cast<size_t>(slots) * slot_floats;

  const AttentionProblem problem{call.q, call.k_cache, call.v_cache, call.out, call.tokens,
                                 call.q_heads, call.kv_heads, call.head_dim, call.context,
                                 call.start, call.scale};
  const AttentionBlockFn block = active_block_fn(&attention_block_fn, &arm_attention_block_fn,
                                                   call.head_dim);
  const int64_t heads = call.batch * s.head_groups;
  // Item i: the latest token blocks first (they see the most keys), so the
  // pool's last chunks are its cheapest.
  struct Item {
    int64_t b, h0, h1, t0, t1;
  };
  auto item_of = [&](int64_t item) {
    const int64_t block_index = s.blocks_per_head - 1 - item / heads;
    const int64_t group = item % s.head_groups;
    Item it;
    it.b = item % heads / s.head_groups;
    it.h0 = group * s.heads_per_block;
    it.h1 = it.h0 + s.heads_per_block < call.kv_heads ? it.h0 + s.heads_per_block : call.kv_heads;
    it.t0 = block_index * s.tokens_per_block;
    it.t1 = it.t0 + s.tokens_per_block < call.tokens ? it.t0 + s.tokens_per_block : call.tokens;
    return it;
  };
  auto partial_of = [&](int64_t unit) {
    float* base = partials + static_cast<size_t>(unit * s.rows * (call.head_dim + 2));
    return AttentionPartial{base, base + s.rows, base + 2 * s.rows};
  };
  parallel_for_slots(0, units, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
    float* mine = scratch + static_cast<size_t>(slot) * slot_floats;
    for (int64_t unit = begin; unit < end; ++unit) {
      const Item it = item_of(unit / s.splits);
      if (s.splits == 1) {
        block(problem, it.b, it.h0, it.h1, it.t0, it.t1, 0, call.context, mine, nullptr);
        continue;
      }
      // Ranges of whole key tiles over the keys this block sees.
      const int64_t keys = call.start + it.t1;
      const int64_t tiles = (keys + kAttentionKeyTile - 1) / kAttentionKeyTile;
      const int64_t part = unit % s.splits;
      const int64_t j_begin = tiles * part / s.splits * kAttentionKeyTile;
      const int64_t j_end = tiles * (part + 1) / s.splits * kAttentionKeyTile;
      const AttentionPartial partial = partial_of(unit);
      block(problem, it.b, it.h0, it.h1, it.t0, it.t1, j_begin, j_end, mine, &partial);
    }
  });
  if (s.splits > 1) {
    for (int64_t item = 0; item < s.items; ++item) {
      const Item it = item_of(item);
      AttentionPartial parts[kMaxSplits];
      for (int64_t c = 0; c < s.splits; ++c) parts[c] = partial_of(item * s.splits + c);
      merge_attention_partials(problem, it.b, it.h0, it.h1, it.t0, it.t1, parts, s.splits);
    }
  }
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
