// aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// Index (int64 out) of the first max / min along `dim`, or into the
// flattened tensor when dim is None (keepdim then keeps every dim as 1).
// The first NaN counts as the extremum, as in ATen. Real dtypes (not bool).
// An empty reduction is an error. argmin shares this file.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

template <bool kMax>
Error arg_extremum_out(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  const bool flatten = args[1]->is_none();
  int64_t dim = 0;
  if (!flatten) {
    TE_ASSIGN_OR_RETURN(dim, int_arg(args, 1, "dim"));
  }
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Long, "out"));
  ReductionPlan plan;
  const Span<const int64_t> dims = flatten ? Span<const int64_t>() : Span<const int64_t>(&dim, 1);
  TE_RETURN_IF_ERROR(plan.init(*self, dims, op));
  TE_CHECK_OR_RETURN(plan.reduced_numel() > 0, Error::InvalidArgument,
                     "%s: expected a non-empty reduction", op);
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(*out, keepdim);
  return switch_dtype_only<kRealTypes>(self->dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* x = self->data_as<T>();
    int64_t* y = out->mutable_data_as<int64_t>();
    plan.for_each_output([&](int64_t o, int64_t base) {
      C best = static_cast<C>(x[base]);
      int64_t best_index = 0, index = 0;
      plan.for_each_reduced(base, [&](int64_t i) {
        const C v = static_cast<C>(x[i]);
        if (best == best && ((kMax ? v > best : v < best) || v != v)) {
          best = v;
          best_index = index;
        }
        ++index;
      });
      y[o] = best_index;
    });
    return Error::Ok;
  });
}

}  // namespace

Error argmax_out(KernelContext& ctx, Span<EValue*> args) {
  return arg_extremum_out<true>(args, "argmax.out");
}

Error argmin_out(KernelContext& ctx, Span<EValue*> args) {
  return arg_extremum_out<false>(args, "argmin.out");
}

}  // namespace native
}  // namespace torchedge
