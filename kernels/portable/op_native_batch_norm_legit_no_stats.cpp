// aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//     bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
//     Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))
//
// Training-mode batch norm without running statistics (what export emits
// for BatchNorm with track_running_stats=False, or F.batch_norm with
// training=True and no running stats), over dim 1 of an [N, C, *] input:
//   mean_c, var_c = the batch statistics of channel c (biased variance)
//   out = (x - mean_c) / sqrt(var_c + eps) * weight_c + bias_c
// save_mean [C] = mean_c and save_invstd [C] = 1 / sqrt(var_c + eps), in
// the parameters' dtype (float32 parameters of a 16-bit input) or the
// input's. Statistics are two-pass in double. training=False has no
// statistics to use and is an error (eager crashes), as is an empty input.
// momentum only updates running statistics, which this overload has none
// of. Floating dtypes; any dim order.
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/normalization.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "_native_batch_norm_legit.no_stats_out";

Error check_param(const Tensor* p, const Tensor& input, const char* name) {
  if (p == nullptr) return Error::Ok;
  TE_CHECK_OR_RETURN(p->dim() == 1, Error::InvalidArgument, "%s: %s must be 1-d, got %d-d", kOp,
                     name, p->dim());
  return check_norm_param(p, input.dtype(), input.size(1), kOp, name);
}

Error check_stat(const Tensor& stat, ScalarType input_dtype, const char* name) {
  TE_CHECK_OR_RETURN(is_floating(stat.dtype()) &&
                         (stat.dtype() == input_dtype || stat.dtype() == ScalarType::Float),
                     Error::InvalidType, "%s: %s must be %s or float32, got %s", kOp, name,
                     to_string(input_dtype), to_string(stat.dtype()));
  return Error::Ok;
}

double param_at(const Tensor* p, int64_t c, double fallback) {
  return p == nullptr ? fallback : load_as_double(*p, c * p->stride(0));
}

}  // namespace

Error native_batch_norm_legit_no_stats_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 9));
  TE_ASSIGN_OR_RETURN(Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(Tensor* weight, optional_tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(bool training, bool_arg(args, 3, "training"));
  TE_ASSIGN_OR_RETURN(double eps, double_arg(args, 5, "eps"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  TE_ASSIGN_OR_RETURN(Tensor* save_mean, tensor_arg(args, 7, "save_mean"));
  TE_ASSIGN_OR_RETURN(Tensor* save_invstd, tensor_arg(args, 8, "save_invstd"));
  TE_CHECK_OR_RETURN(training, Error::InvalidArgument,
                     "%s: training=False needs running statistics (use "
                     "_native_batch_norm_legit_no_training)",
                     kOp);
  TE_CHECK_OR_RETURN(x->dim() >= 2, Error::InvalidArgument,
                     "%s: expected an input of rank >= 2 ([N, C, ...]), got %d-d", kOp, x->dim());
  TE_CHECK_OR_RETURN(x->numel() > 0, Error::InvalidArgument,
                     "%s: input must have at least one element", kOp);
  TE_RETURN_IF_ERROR(check_param(weight, *x, "weight"));
  TE_RETURN_IF_ERROR(check_param(bias, *x, "bias"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x, *out, "input", "out"));
  TE_RETURN_IF_ERROR(check_stat(*save_mean, x->dtype(), "save_mean"));
  TE_RETURN_IF_ERROR(check_stat(*save_invstd, x->dtype(), "save_invstd"));
  TE_RETURN_IF_ERROR(resize_like(*out, *x));
  const int64_t channels[] = {x->size(1)};
  TE_RETURN_IF_ERROR(resize_to(*save_mean, channels));
  TE_RETURN_IF_ERROR(resize_to(*save_invstd, channels));
  int64_t dims[kTensorDimensionLimit];
  size_t count = 0;
  for (int d = 0; d < x->dim(); ++d) {
    if (d != 1) dims[count++] = d;
  }
  ReductionPlan plan;  // one "output" per channel; lanes over N and space
  TE_RETURN_IF_ERROR(plan.init(*x, {dims, count}, kOp, out));
  plan.bind_output(*out, /*keepdim=*/true);
  const double n = static_cast<double>(plan.reduced_numel());
  return switch_dtype_only<kFloatingTypes>(x->dtype(), kOp, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* in = x->data_as<T>();
    T* y = out->mutable_data_as<T>();
    int64_t c = 0;
    plan.for_each_output([&](int64_t out_base, int64_t in_base) {
      double sum = 0;
      plan.for_each_reduced(in_base, [&](int64_t i) { sum += static_cast<double>(in[i]); });
      const double mean = sum / n;
      double squares = 0;
      plan.for_each_reduced(in_base, [&](int64_t i) {
        const double d = static_cast<double>(in[i]) - mean;
        squares += d * d;
      });
      const double invstd = 1.0 / std::sqrt(squares / n + eps);
      const double alpha = param_at(weight, c, 1.0) * invstd;
      const C a = static_cast<C>(alpha);
      const C b = static_cast<C>(param_at(bias, c, 0.0) - mean * alpha);
      plan.for_each_reduced_pair(in_base, out_base, [&](int64_t i, int64_t o) {
        y[o] = static_cast<T>(static_cast<C>(in[i]) * a + b);
      });
      store_from_double(*save_mean, c * save_mean->stride(0), mean);
      store_from_double(*save_invstd, c * save_invstd->stride(0), invstd);
      ++c;
    });
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
