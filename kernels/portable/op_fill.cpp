// aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
// aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out)
//
// Resizes out to self's shape and sets every element to value converted
// to out's dtype (any dtype). A Scalar value that overflows the dtype is an
// error; a Tensor value must be zero-dim and is converted like a copy.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error fill_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* value, scalar_value_arg(args, 1, "value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_scalar_fits(*value, out->dtype(), "fill.Scalar_out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return fill_with_scalar(*out, *value, "fill.Scalar_out");
}

Error fill_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* value, tensor_arg(args, 1, "value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(value->dim() == 0, Error::InvalidArgument,
                     "fill.Tensor_out: value must be a 0-dim tensor, got %d dims", value->dim());
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  // The zero-dim value broadcasts to every element of out.
  return switch_dtype_only<kAllTypes | kComplexTypes>(out->dtype(), "fill.Tensor_out", [&](auto tag) {
    using T = decltype(tag);
    return map_unary<T, T>(*value, *out, [](compute_t<T> x) { return x; });
  });
}

}  // namespace native
}  // namespace torchedge
