// torchedge::attention.out(Tensor query, Tensor key_t, Tensor value, *, Tensor(a!) out)
//
// Fast case: float32 query [B, L, D], key_t [B, D, S], value [B, S, E] and
// out, all contiguous: flash attention (vec/flash_attention.h), blocks of
// kFlashQueryBlock query rows of one batch item split across threads, each
// with its own scratch from the temp allocator (no score matrix). Every
// other call (other dtypes or layouts, mismatched shapes) goes to the
// portable kernel, which also reports the errors.
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/flash_attention.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {

Error attention_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !is_dense_float_arg(args[0]) || !is_dense_float_arg(args[1]) ||
      !is_dense_float_arg(args[2]) || !is_dense_float_arg(args[3])) {
    return native::attention_out(ctx, args);
  }
  const Tensor& q = args[0]->to_tensor();
  const Tensor& kt = args[1]->to_tensor();
  const Tensor& v = args[2]->to_tensor();
  if (q.dim() != 3 || kt.dim() != 3 || v.dim() != 3 || q.size(0) != kt.size(0) ||
      q.size(0) != v.size(0) || q.size(2) != kt.size(1) || kt.size(2) != v.size(1)) {
    return native::attention_out(ctx, args);
  }
  Tensor& out = args[3]->to_tensor();
  const int64_t batch = q.size(0), queries = q.size(1), vdim = v.size(2);
  const int64_t out_sizes[] = {batch, queries, vdim};
  TE_RETURN_IF_ERROR(resize_to(out, out_sizes));
  if (batch == 0 || queries == 0 || vdim == 0) return Error::Ok;
  const FlashAttentionProblem problem{q.data_as<float>(), kt.data_as<float>(), v.data_as<float>(),
                                      out.mutable_data_as<float>(), queries, kt.size(2),
                                      q.size(2), vdim};
  const int64_t blocks = (queries + kFlashQueryBlock - 1) / kFlashQueryBlock;
  const int64_t units = batch * blocks;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t slots = units < threads ? units : threads;
  const size_t slot_floats = flash_attention_scratch_floats(problem.head_dim, vdim);
  const size_t bytes = static_cast<size_t>(slots) * slot_floats * sizeof(float);
  float* scratch = static_cast<float*>(ctx.allocate_temp(bytes, 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "attention.out: needs %zu bytes of kernel scratch (temp allocator)", bytes);
  const FlashAttentionBlockFn block =
      active_block_fn(&flash_attention_block_fn, &arm_flash_attention_block_fn, vdim);
  parallel_for_slots(0, units, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
    float* mine = scratch + static_cast<size_t>(slot) * slot_floats;
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t b = unit / blocks, q0 = unit % blocks * kFlashQueryBlock;
      const int64_t q1 = q0 + kFlashQueryBlock < queries ? q0 + kFlashQueryBlock : queries;
      block(problem, b, q0, q1, mine);
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
