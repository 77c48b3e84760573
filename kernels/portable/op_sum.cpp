// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *,
//     ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
// aten::sum.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
//
// Sums over `dim` (None or [] = every dim) into out's dtype (which
// `dtype`, if given, must equal). As in ATen, each element is converted
// straight to the accumulator of out's dtype: double for floating outs
// (ATen: float; double keeps float32 sums at least as accurate as its
// cascade sum), int64 for integer outs (truncating floats, wrapping like
// ATen), int64-then-"any" for a bool out. Every dtype in, every dtype out.
// complex64 and complex128 sum into a complex out (complex_reduction.h).
// sum.out is the full reduction (dim=None, keepdim=False).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/complex_reduction.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error sum_intlist_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  bool has_dims = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, optional_int_list_arg(args, 1, "dim", &has_dims));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(int64_t dtype, optional_int_arg(args, 3, "dtype", -1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_CHECK_OR_RETURN(dtype < 0 || dtype == static_cast<int64_t>(out->dtype()),
                     Error::InvalidType, "sum.IntList_out: dtype %lld does not match out dtype %s",
                     static_cast<long long>(dtype), to_string(out->dtype()));
  ReductionPlan plan;
  TE_RETURN_IF_ERROR(plan.init(*self, dims, "sum.IntList_out"));
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(*out, keepdim);
  if (is_complex(self->dtype()) || is_complex(out->dtype())) {
    return reduce_complex(
        *self, *out, plan, "sum.IntList_out", ComplexAccumulator(0),
        [](ComplexAccumulator acc, ComplexAccumulator x) { return acc + x; },
        [](ComplexAccumulator acc) { return acc; });
  }
  return switch_dtype(self->dtype(), kAllTypes, "sum.IntList_out", [&](auto in_tag) {
    using In = decltype(in_tag);
    return switch_dtype(out->dtype(), kAllTypes, "sum.IntList_out", [&](auto out_tag) {
      using Out = decltype(out_tag);
      using Acc = sum_acc_t<Out>;
      const In* x = self->data_as<In>();
      Out* y = out->mutable_data_as<Out>();
      plan.for_each_output([&](int64_t o, int64_t base) {
        Acc acc = 0;
        plan.for_each_reduced(base, [&](int64_t i) {
          acc += static_cast<Acc>(x[i]);
        });
        y[o] = static_cast<Out>(acc);
      });
      return Error::Ok;
    });
  });
}

Error sum_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  EValue all_dims;
  EValue keepdim(false);
  EValue* forwarded[] = {args[0], &all_dims, &keepdim, args[1], args[2]};
  return sum_intlist_out(ctx, forwarded);
}

}  // namespace native
}  // namespace torchedge
