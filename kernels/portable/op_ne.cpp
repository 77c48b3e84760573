// aten::ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::ne.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self != other, broadcast, compared in the dtype ATen promotes the
// operands to (every dtype; a NaN compares unequal to everything). `out`
// is bool, or any other dtype (1 / 0).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error ne_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return compare_tensor_kernel<kComplexTypes>(args, "ne.Tensor_out", [](auto x, auto y) { return x != y; });
}

Error ne_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return compare_scalar_kernel<kComplexTypes>(args, "ne.Scalar_out", [](auto x, auto y) { return x != y; });
}

}  // namespace native
}  // namespace torchedge
