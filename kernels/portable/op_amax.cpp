// aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// aten::amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// Max / min over `dim` ([] = every dim); NaN propagates. self and out share
// one dtype (any, bool included). A reduced dim of size 0 is an error, as
// in ATen. amin shares this file: the two differ only in the comparison.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

template <bool kMax>
Error extremum_out(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, int_list_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  ReductionPlan plan;
  TE_RETURN_IF_ERROR(plan.init(*self, dims, op));
  const int empty_dim = plan.empty_reduced_dim();
  TE_CHECK_OR_RETURN(empty_dim < 0, Error::InvalidArgument,
                     "%s: expected reduction dim %d to have non-zero size", op, empty_dim);
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(*out, keepdim);
  return switch_dtype(self->dtype(), kAllTypes, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* x = self->data_as<T>();
    T* y = out->mutable_data_as<T>();
    plan.for_each_output([&](int64_t o, int64_t base) {
      C best = static_cast<C>(x[base]);
      plan.for_each_reduced(base, [&](int64_t i) {
        const C v = static_cast<C>(x[i]);
        // v != v: NaN wins and then stays (nothing compares above NaN).
        if ((kMax ? v > best : v < best) || v != v) best = v;
      });
      y[o] = static_cast<T>(best);
    });
    return Error::Ok;
  });
}

}  // namespace

Error amax_out(KernelContext& ctx, Span<EValue*> args) {
  return extremum_out<true>(args, "amax.out");
}

Error amin_out(KernelContext& ctx, Span<EValue*> args) {
  return extremum_out<false>(args, "amin.out");
}

}  // namespace native
}  // namespace torchedge
