// torchedge::rope.out(Tensor x, Tensor cos, Tensor sin, *, Tensor(a!) out)
//
// The portable kernel's contract (support/decoder_op_args.h) and loops,
// with (batch, token) rows split across threads (prefill's 512 tokens); the
// loop over one head's halves is left to the compiler's vectorizer.
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {
namespace {

// One head: out may be x (every element is read before its pair is written).
void rotate(const float* x, const float* c, const float* s, int64_t half, float* y) {
  for (int64_t i = 0; i < half; ++i) {
    const float lo = x[i], hi = x[i + half];
    y[i] = lo * c[i] - hi * s[i];
    y[i + half] = hi * c[i + half] + lo * s[i + half];
  }
}

}  // namespace

Error rope_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_ASSIGN_OR_RETURN(const RopeCall call, parse_rope_args(args));
  const int64_t d = call.dim, row = call.heads * d;
  parallel_for(0, call.batch * call.tokens, rows_per_chunk(row, kElementGrain),
               [&](int64_t begin, int64_t end) {
    for (int64_t bt = begin; bt < end; ++bt) {
      const int64_t t = bt % call.tokens;
      for (int64_t h = 0; h < call.heads; ++h) {
        rotate(call.x + bt * row + h * d, call.cos + t * d, call.sin + t * d, d / 2,
               call.out + bt * row + h * d);
      }
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
