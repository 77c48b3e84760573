// aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
//
// out = min(max(self, min), max) in the dtype ATen promotes self, min and
// max to (an integer tensor clamped with a float bound gives float32; a
// bool tensor with an int bound gives int64). NaN in self or a bound gives
// NaN; min > max gives max. At least one bound is required; a bound that
// overflows the result dtype is an error. `out` may have any dtype the
// result casts to.
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

Result<const EValue*> optional_scalar_arg(Span<EValue*> args, size_t index, const char* name) {
  if (index < args.size() && args[index] != nullptr && args[index]->is_none()) {
    return static_cast<const EValue*>(args[index]);
  }
  return scalar_value_arg(args, index, name);
}

}  // namespace

Error clamp_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* lo, optional_scalar_arg(args, 1, "min"));
  TE_ASSIGN_OR_RETURN(const EValue* hi, optional_scalar_arg(args, 2, "max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(!lo->is_none() || !hi->is_none(), Error::InvalidArgument,
                     "clamp.out: at least one of 'min' or 'max' must not be None");
  ResultType promotion;
  promotion.add(*self);
  promotion.add(*lo);
  promotion.add(*hi);
  const ScalarType common = promotion.get();
  TE_CHECK_OR_RETURN(common != ScalarType::Bool, Error::InvalidType,
                     "clamp.out: not supported for bool");
  if (!lo->is_none()) TE_RETURN_IF_ERROR(expect_scalar_fits(*lo, common, "clamp.out"));
  if (!hi->is_none()) TE_RETURN_IF_ERROR(expect_scalar_fits(*hi, common, "clamp.out"));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "clamp.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kRealTypes>(common, "clamp.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const bool has_lo = !lo->is_none();
    const bool has_hi = !hi->is_none();
    const C min_c = has_lo ? static_cast<C>(convert_element<T>(scalar_to<C>(*lo))) : C(0);
    const C max_c = has_hi ? static_cast<C>(convert_element<T>(scalar_to<C>(*hi))) : C(0);
    return map_unary<T, T>(*self, *out, [=](C x) {
      if (has_lo) x = max_propagate_nan(x, min_c);
      if (has_hi) x = min_propagate_nan(x, max_c);
      return x;
    });
  });
}

}  // namespace native
}  // namespace torchedge
