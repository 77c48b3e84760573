// aten::isnan.out(Tensor self, *, Tensor(a!) out)
//
// out = whether self is NaN, for every input dtype (always false for integral
// and bool elements). `out` is bool, or any other dtype (1 / 0).
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error isnan_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllTypes | kComplexTypes>(self->dtype(), "isnan.out", [&](auto tag) {
    using T = decltype(tag);
    return map_unary<T, bool>(*self, *out, [](compute_t<T> x) { return is_nan(x); });
  });
}

}  // namespace native
}  // namespace torchedge
