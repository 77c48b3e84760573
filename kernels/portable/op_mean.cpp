// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *,
//     ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
// aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
//
// Mean over `dim` (None or [] = every dim) into out's floating dtype
// (which `dtype`, if given, must equal), accumulated in double. An integer
// or bool self needs an explicit dtype, as in ATen. Each element is first
// converted to out's dtype, as ATen converts self to `dtype` before it
// reduces: an int32 2147483647 summed into float32 counts as 2^31, which
// is what makes mixed int32 extremes agree with eager. An empty reduction
// gives NaN. complex64 and complex128 average into a complex out
// (complex_reduction.h). mean.dtype_out is the full reduction (dim=None, keepdim=False).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/complex_reduction.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// `v` rounded to Out (16-bit floats through float), then widened to double.
template <typename Out, typename In>
double as_out_dtype(In v) {
  if constexpr (sizeof(Out) == 2) {
    return static_cast<double>(static_cast<float>(Out(static_cast<float>(v))));
  } else {
    return static_cast<double>(static_cast<Out>(v));
  }
}

}  // namespace

Error mean_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  bool has_dims = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, optional_int_list_arg(args, 1, "dim", &has_dims));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(int64_t dtype, optional_int_arg(args, 3, "dtype", -1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_CHECK_OR_RETURN(dtype >= 0 || is_floating(self->dtype()) || is_complex(self->dtype()),
                     Error::InvalidType,
                     "mean.out: input dtype must be floating without an explicit dtype, got %s",
                     to_string(self->dtype()));
  TE_CHECK_OR_RETURN(dtype < 0 || dtype == static_cast<int64_t>(out->dtype()),
                     Error::InvalidType, "mean.out: dtype %lld does not match out dtype %s",
                     static_cast<long long>(dtype), to_string(out->dtype()));
  ReductionPlan plan;
  TE_RETURN_IF_ERROR(plan.init(*self, dims, "mean.out"));
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(*out, keepdim);
  const double count = static_cast<double>(plan.reduced_numel());
  if (is_complex(self->dtype()) || is_complex(out->dtype())) {
    return reduce_complex(
        *self, *out, plan, "mean.out", ComplexAccumulator(0),
        [](ComplexAccumulator acc, ComplexAccumulator x) { return acc + x; },
        [count](ComplexAccumulator acc) { return acc / count; });
  }
  return switch_dtype_only<kAllTypes>(self->dtype(), "mean.out", [&](auto in_tag) {
    using In = decltype(in_tag);
    return switch_dtype_only<kFloatingTypes>(out->dtype(), "mean.out", [&](auto out_tag) {
      using Out = decltype(out_tag);
      const In* x = self->data_as<In>();
      Out* y = out->mutable_data_as<Out>();
      plan.for_each_output([&](int64_t o, int64_t base) {
        double acc = 0;
        plan.for_each_reduced(base, [&](int64_t i) {
          acc += as_out_dtype<Out>(x[i]);
        });
        y[o] = static_cast<Out>(acc / count);
      });
      return Error::Ok;
    });
  });
}

Error mean_dtype_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  EValue all_dims;
  EValue keepdim(false);
  EValue* forwarded[] = {args[0], &all_dims, &keepdim, args[1], args[2]};
  return mean_out(ctx, forwarded);
}

}  // namespace native
}  // namespace torchedge
