// torchedge::silu_mul.out(Tensor gate, Tensor up, *, Tensor(a!) out)
//
// The portable kernel's contract (support/decoder_op_args.h) with the
// vectorized silu and multiply of the active vec table, in blocks through a
// stack buffer (so out may be gate or up), blocks split across threads.
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

Error silu_mul_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_ASSIGN_OR_RETURN(const SiluMulCall call, parse_silu_mul_args(args));
  const VecKernels& vec = active_vec_kernels();
  constexpr int64_t kBlock = 512;
  parallel_for(0, call.count, kTranscendentalGrain, [&](int64_t begin, int64_t end) {
    float silu[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      const int64_t n = end - i < kBlock ? end - i : kBlock;
      vec.silu(call.gate + i, silu, n);
      vec.binary(BinaryOp::kMul, silu, false, call.up + i, false, 1.0f, call.out + i, n);
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
