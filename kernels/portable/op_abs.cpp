// aten::abs.out(Tensor self, *, Tensor(a!) out)
//
// out = |self|. Every dtype but bool; the most negative integer stays
// itself (it wraps, as in ATen).
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error abs_out(KernelContext& ctx, Span<EValue*> args) {
  return unary_kernel<kRealTypes>(args, "abs.out", [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_floating_point_v<C>) {
      return std::fabs(x);
    } else if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      return x < 0 ? wrapping_neg(x) : x;
    }
  });
}

}  // namespace native
}  // namespace torchedge
