// torchedge::attention.out(Tensor query, Tensor key_t, Tensor value, *, Tensor(a!) out)
//
// Fast case: float32 query [B, L, D], key_t [B, D, S], value [B, S, E] and
// out, all contiguous: flash attention (vec/flash_attention.h's
// flash_attention(): blocks of query rows of one batch item split across
// threads, each thread with its slot of scratch from the temp allocator, no
// score matrix; when the AVX-512 kernel's packed keys do not fit there, the
// generic block, whose scratch is one query block's). Every
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
                                      out.mutable_data_as<float>(), batch, queries, kt.size(2),
                                      q.size(2), vdim};
  const int64_t threads = static_cast<int64_t>(num_threads());
  Isa isa = best_isa();
  size_t bytes = flash_attention_scratch_bytes(problem, isa, threads);
  float* scratch = static_cast<float*>(ctx.allocate_temp(bytes, 64));
  if (scratch == nullptr && isa == Isa::kAvx512) {
    // The AVX-512 kernel's slots hold a head's packed keys (S x D floats):
    // a sequence too long for the temp memory takes the generic block, whose
    // scratch does not grow with S.
    isa = Isa::kAvx2;
    bytes = flash_attention_scratch_bytes(problem, isa, threads);
    scratch = static_cast<float*>(ctx.allocate_temp(bytes, 64));
  }
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "attention.out: needs %zu bytes of kernel scratch (temp allocator)", bytes);
  flash_attention(problem, isa, scratch);
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
