// aten::isinf.out(Tensor self, *, Tensor(a!) out)
//
// out = whether self is +inf or -inf, for every input dtype (always false for integral
// and bool elements; a complex element when either part is infinite). `out` is
// bool, or any other dtype (1 / 0).
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error isinf_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllTypes | kComplexTypes>(self->dtype(), "isinf.out", [&](auto tag) {
    using T = decltype(tag);
    return map_unary<T, bool>(*self, *out, [](compute_t<T> x) {
      if constexpr (is_complex_v<compute_t<T>>) {
        return std::isinf(x.real()) || std::isinf(x.imag());  // either part infinite
      } else if constexpr (std::is_floating_point_v<compute_t<T>>) {
        return std::isinf(x);
      } else {
        return false;
      }
    });
  });
}

}  // namespace native
}  // namespace torchedge
