// aten::neg.out(Tensor self, *, Tensor(a!) out)
//
// out = -self. Every dtype but bool, complex64 and complex128 included (use logical_not); integers wrap
// (-(-128) is -128 for int8, -1 is 255 for uint8).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error neg_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes | kComplexTypes>(args, "neg.out", [](auto x) {
    if constexpr (is_complex_v<decltype(x)>) {
      return -x;  // both parts negated, so -(0+0i) is -0-0i as in eager
    } else {
      return wrapping_neg(x);
    }
  });
}

}  // namespace native
}  // namespace torchedge
