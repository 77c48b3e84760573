// aten::_conj_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// aten::_conj_physical.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
//
// The complex conjugate, materialized: out = real - i imag for a complex
// self; a real self is copied unchanged (conj of a real tensor is itself).
// self and out share one dtype.
#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

Error conjugate(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(copy_view_to(view_of(*self), *out));
  if (!is_complex(out->dtype())) return Error::Ok;
  // out is dense (any dim order), so every element is visited by index.
  return switch_complex(out->dtype(), op, [&](auto tag) {
    using C = decltype(tag);
    C* data = out->mutable_data_as<C>();
    for (int64_t i = 0; i < static_cast<int64_t>(out->numel()); ++i) {
      store_complex<C>(data, i, std::conj(load_complex<C>(data, i)));
    }
    return Error::Ok;
  });
}

}  // namespace

Error _conj_copy_out(KernelContext& ctx, Span<EValue*> args) {
  return conjugate(args, "_conj_copy.out");
}

Error _conj_physical_out(KernelContext& ctx, Span<EValue*> args) {
  return conjugate(args, "_conj_physical.out");
}

}  // namespace native
}  // namespace torchedge
