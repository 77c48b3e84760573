// aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = the larger of self and other, broadcast, in ATen's promoted dtype
// (every dtype; for bool it is logical or). NaN in either operand gives NaN.
// `out` may have any dtype the result casts to.
#include "kernels/portable/support/binary_kernels.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error maximum_out(KernelContext& ctx, Span<EValue*> args) {
  return binary_tensor_kernel<kAllTypes>(args, "maximum.out",
                                         [](auto x, auto y) { return max_propagate_nan(x, y); });
}

}  // namespace native
}  // namespace torchedge
