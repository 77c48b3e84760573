// aten::clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
//
// out = min(max(self, min), max) with self, min and max broadcast and
// computed in their promoted dtype (an int64 tensor clamped by a float32
// bound gives float32). NaN in self or a bound gives NaN; min > max gives
// max. At least one bound is required. Every dtype but bool, which ATen
// accepts only with a single bound. `out` may have any dtype the result
// casts to. (clamp.out, with Scalar bounds, is op_clamp.cpp.)
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

// Clamps `self` in dtype T; lo and/or hi may be null (not both).
template <typename T>
Error clamp_by_tensors(const Tensor& self, const Tensor* lo, const Tensor* hi, Tensor& out) {
  using C = compute_t<T>;
  if (lo != nullptr && hi != nullptr) {
    return map_ternary<T, T, T, T>(self, *lo, *hi, out, [](C x, C l, C h) {
      return min_propagate_nan(max_propagate_nan(x, l), h);
    });
  }
  if (lo != nullptr) {
    return map_binary<T, T, T>(self, *lo, out, [](C x, C l) { return max_propagate_nan(x, l); });
  }
  return map_binary<T, T, T>(self, *hi, out, [](C x, C h) { return min_propagate_nan(x, h); });
}

}  // namespace

Error clamp_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* lo, optional_tensor_arg(args, 1, "min"));
  TE_ASSIGN_OR_RETURN(const Tensor* hi, optional_tensor_arg(args, 2, "max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(lo != nullptr || hi != nullptr, Error::InvalidArgument,
                     "clamp.Tensor_out: at least one of 'min' or 'max' must not be None");
  ResultType promotion;
  promotion.add(*self);
  if (lo != nullptr) promotion.add(*lo);
  if (hi != nullptr) promotion.add(*hi);
  const ScalarType common = promotion.get();
  TE_CHECK_OR_RETURN(common != ScalarType::Bool || lo == nullptr || hi == nullptr,
                     Error::InvalidType,
                     "clamp.Tensor_out: not supported for bool with both min and max");
  TE_RETURN_IF_ERROR(expect_castable(common, *out, "clamp.Tensor_out"));
  if (lo != nullptr && hi != nullptr) {
    TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *lo, *hi));
  } else {
    TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, lo != nullptr ? *lo : *hi));
  }
  return switch_dtype_only<kAllTypes>(common, "clamp.Tensor_out", [&](auto tag) {
    return clamp_by_tensors<decltype(tag)>(*self, lo, hi, *out);
  });
}

}  // namespace native
}  // namespace torchedge
