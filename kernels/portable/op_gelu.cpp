// aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
//
// Gaussian error linear unit, exact ("none": x/2 * (1 + erf(x / sqrt 2)))
// or with the tanh approximation ("tanh"). Floating dtypes only; `out`
// has self's dtype (or another floating dtype).
#include <cmath>
#include <cstring>

#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/gelu.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

bool equals(StringView s, const char* text) {
  return s.size == strlen(text) && memcmp(s.data, text, s.size) == 0;
}

}  // namespace

Error gelu_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(StringView approximate, string_arg(args, 1, "approximate"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const bool use_tanh = equals(approximate, "tanh");
  TE_CHECK_OR_RETURN(use_tanh || equals(approximate, "none"), Error::InvalidArgument,
                     "gelu.out: approximate must be 'none' or 'tanh', got '%.*s'",
                     static_cast<int>(approximate.size), approximate.data);
  TE_RETURN_IF_ERROR(expect_castable(self->dtype(), *out, "gelu.out"));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), "gelu.out", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if (use_tanh) return map_unary<T, T>(*self, *out, [](C x) { return gelu_tanh(x); });
    return map_unary<T, T>(*self, *out, [](C x) { return gelu_exact(x); });
  });
}

}  // namespace native
}  // namespace torchedge
