// aten::bitwise_not.out(Tensor self, *, Tensor(a!) out)
//
// out = ~self (two's complement) for integral dtypes, logical not for bool.
// Floating dtypes are an error, as in ATen.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error bitwise_not_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr DtypeSet kBitwiseTypes = kIntegralTypes | dtype_bit(ScalarType::Bool);
  return unary_kernel<kBitwiseTypes>(args, "bitwise_not.out", [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, bool>) {
      return !x;
    } else {
      return static_cast<C>(~x);
    }
  });
}

}  // namespace native
}  // namespace torchedge
