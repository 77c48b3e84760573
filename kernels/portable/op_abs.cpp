// aten::abs.out(Tensor self, *, Tensor(a!) out)
//
// out = |self|. Every dtype but bool; the most negative integer stays
// itself (it wraps, as in ATen). complex64 / complex128 give their magnitude
// as float32 / float64.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
// |x| of a complex tensor is real: complex64 gives float32, complex128
// float64 (std::abs on std::complex is hypot, as ATen's).
Error complex_abs(const Tensor& self, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_castable(complex_part_type(self.dtype()), *out, "abs.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, self));
  return switch_dtype_only<kComplexTypes>(self.dtype(), "abs.out", [&](auto tag) {
    using T = decltype(tag);
    using R = typename T::value_type;
    return map_unary<T, R>(self, *out, [](T x) { return std::abs(x); });
  });
}
}  // namespace

Error abs_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  if (is_complex(self->dtype())) return complex_abs(*self, args);
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
