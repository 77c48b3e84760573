// aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = the smaller of self and other, broadcast, in ATen's promoted dtype
// (every dtype; for bool it is logical and). NaN in either operand gives NaN.
// `out` may have any dtype the result casts to.
#include "kernels/portable/support/binary_kernels.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error minimum_out(KernelContext& ctx, Span<EValue*> args) {
  return binary_tensor_kernel<kAllTypes>(args, "minimum.out",
                                         [](auto x, auto y) { return min_propagate_nan(x, y); });
}

}  // namespace native
}  // namespace torchedge
