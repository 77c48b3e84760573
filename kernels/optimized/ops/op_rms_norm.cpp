// torchedge::rms_norm.out(Tensor input, Tensor weight, float eps, *, Tensor(a!) out)
//
// The portable kernel's contract (support/decoder_op_args.h): per row
// y = weight * (x * rsqrt(mean(x * x) + eps)), eager's operation order, with
// the vec table's loops (squares, sum, two multiplies; the row stays in L1)
// and rows split across threads.
#include <cmath>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/decoder_op_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

Error rms_norm_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_ASSIGN_OR_RETURN(const RmsNormCall call, parse_rms_norm_args(args));
  if (call.rows == 0) return Error::Ok;
  const VecKernels& vec = active_vec_kernels();
  constexpr int64_t kBlock = 1024;
  parallel_for(0, call.rows, rows_per_chunk(call.dim, kElementGrain), [&](int64_t begin, int64_t end) {
    float squares[kBlock];
    for (int64_t r = begin; r < end; ++r) {
      const float* x = call.input + r * call.dim;
      float* y = call.out + r * call.dim;
      float sum = 0.0f;
      for (int64_t i = 0; i < call.dim; i += kBlock) {
        const int64_t n = call.dim - i < kBlock ? call.dim - i : kBlock;
        vec.binary(BinaryOp::kMul, x + i, false, x + i, false, 1.0f, squares, n);
        sum += vec.sum(squares, n);
      }
      const float inv = 1.0f / std::sqrt(sum / static_cast<float>(call.dim) + call.eps);
      vec.binary(BinaryOp::kMul, x, false, &inv, true, 1.0f, y, call.dim);
      vec.binary(BinaryOp::kMul, call.weight, false, y, false, 1.0f, y, call.dim);
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
