// aten::eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// Fast case: self float32 and out bool in the same dim order, other an Int,
// Double or Bool scalar. As in the portable kernel, other is converted to
// float32 first (a Scalar does not promote a float tensor) and NaN compares
// unequal to everything; out[i] = (self[i] == other) is a vectorized loop
// split across threads for large tensors. This is the first op of the
// attention-mask chain (eq -inf -> logical_not -> any -> where). Everything
// else goes to the portable kernel.
#include "kernels/optimized/copy/glue_args.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/portable/support/elementwise.h"
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

// Out of line with restrict pointers so the loop vectorizes (see op_logical.cpp).
__attribute__((noinline)) void equal_to(const float* __restrict x, float y,
                                        uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(x[i] == y);
}

}  // namespace

Error eq_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 3 || !is_tensor_at(args, 0) || args[1] == nullptr ||
      !args[1]->is_scalar() || !is_tensor_at(args, 2)) {
    return native::eq_scalar_out(ctx, args);
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  if (self.dtype() != ScalarType::Float || out.dtype() != ScalarType::Bool ||
      !same_dim_order(self, out)) {
    return native::eq_scalar_out(ctx, args);
  }
  TE_RETURN_IF_ERROR(resize_like(out, self));
  const float y = scalar_to<float>(*args[1]);
  const float* x = self.data_as<float>();
  uint8_t* z = static_cast<uint8_t*>(out.mutable_data());
  parallel_for(0, numel_of(self), kElementGrain, [&](int64_t b, int64_t e) {
    equal_to(x + b, y, z + b, e - b);
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
