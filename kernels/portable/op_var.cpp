// aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//     bool keepdim=False, Tensor(a!) out) -> Tensor(a!)
//
// Variance over `dim` (None or [] = every dim): sum((x - mean)^2) /
// max(0, N - correction), correction defaulting to 1. Two passes in double.
// As in ATen, N <= correction gives inf (or NaN for 0/0) and an empty
// reduction NaN. self and out are floating (any mix).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error var_correction_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  bool has_dims = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, optional_int_list_arg(args, 1, "dim", &has_dims));
  double correction = 1.0;
  if (!args[2]->is_none()) {
    TE_ASSIGN_OR_RETURN(correction, scalar_arg(args, 2, "correction"));
  }
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 3, "keepdim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  ReductionPlan plan;
  TE_RETURN_IF_ERROR(plan.init(*self, dims, "var.correction_out"));
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(*out, keepdim);
  const double count = static_cast<double>(plan.reduced_numel());
  const double dof = count - correction > 0 ? count - correction : 0.0;
  return switch_dtype_only<kFloatingTypes>(self->dtype(), "var.correction_out", [&](auto in_tag) {
    using In = decltype(in_tag);
    return switch_dtype_only<kFloatingTypes>(out->dtype(), "var.correction_out", [&](auto tag) {
      using Out = decltype(tag);
      const In* x = self->data_as<In>();
      Out* y = out->mutable_data_as<Out>();
      plan.for_each_output([&](int64_t o, int64_t base) {
        double sum = 0;
        plan.for_each_reduced(base, [&](int64_t i) { sum += static_cast<double>(x[i]); });
        const double mean = sum / count;
        double squares = 0;
        plan.for_each_reduced(base, [&](int64_t i) {
          const double d = static_cast<double>(x[i]) - mean;
          squares += d * d;
        });
        y[o] = static_cast<Out>(count == 0 ? mean : squares / dof);
      });
      return Error::Ok;
    });
  });
}

}  // namespace native
}  // namespace torchedge
