// aten::logical_not.out(Tensor self, *, Tensor(a!) out)
//
// Fast case: self and out bool, in the same dim order (so element i of one
// is element i of the other in memory): out[i] = (self[i] == 0), a byte loop
// that vectorizes, split across threads for large tensors. Everything else
// (other dtypes, mixed layouts, bad arguments) goes to the portable kernel.
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

bool same_dim_order(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.dim_order()[d] != b.dim_order()[d]) return false;
  }
  return true;
}

// Out of line with restrict pointers: inlined into parallel_for's
// one-thread path, GCC 12 left the loop scalar.
__attribute__((noinline)) void not_bytes(const uint8_t* __restrict x, uint8_t* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint8_t>(x[i] == 0);
}

}  // namespace

Error logical_not_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 2 || !is_tensor_at(args, 0) || !is_tensor_at(args, 1)) {
    return native::logical_not_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[1]->to_tensor();
  if (self.dtype() != ScalarType::Bool || out.dtype() != ScalarType::Bool ||
      !same_dim_order(self, out)) {
    return native::logical_not_out(ctx, args);
  }
  TE_RETURN_IF_ERROR(resize_like(out, self));
  const uint8_t* x = static_cast<const uint8_t*>(self.data());
  uint8_t* y = static_cast<uint8_t*>(out.mutable_data());
  parallel_for(0, numel_of(self), kElementGrain * 4, [&](int64_t b, int64_t e) {
    not_bytes(x + b, y + b, e - b);
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
