// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//
// out = condition ? self : other, all three broadcast, in the dtype ATen
// promotes self and other to. condition must be bool (uint8 is accepted,
// as ATen still does with a deprecation warning). Every dtype.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error where_self_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* cond, tensor_arg(args, 0, "condition"));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 1, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 2, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(cond->dtype() == ScalarType::Bool || cond->dtype() == ScalarType::Byte,
                     Error::InvalidType,
                     "where.self_out: expected condition to be a bool tensor, got %s",
                     to_string(cond->dtype()));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "where.self_out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *cond, *self, *other));
  return switch_dtype_only<kAllTypes | kComplexTypes>(common, "where.self_out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_ternary<bool, T, T, T>(*cond, *self, *other, *out,
                                      [](bool c, C x, C y) { return c ? x : y; });
  });
}

}  // namespace native
}  // namespace torchedge
