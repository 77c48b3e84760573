// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, float momentum, float eps, *,
//     Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
// aten::native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//     Tensor? running_var, bool training, float momentum, float eps, *, Tensor(a!) out,
//     Tensor(b!) save_mean, Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))
//
// Inference batch norm over dim 1 of an [N, C, *] input:
//   out = (x - running_mean) / sqrt(running_var + eps) * weight + bias
// folded per channel (in double) into out = x * alpha + beta, applied in
// float (double for float64). The save outputs are resized to [0], as ATen
// does without training. native_batch_norm.out needs training=False and the
// running statistics (training mode is NotSupported). Floating dtypes;
// parameters share the input's dtype or are float32 for a 16-bit input.
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

struct BatchNormArgs {
  const Tensor* input;
  const Tensor* weight;  // each parameter: null = None
  const Tensor* bias;
  const Tensor* mean;
  const Tensor* var;
  double eps;
  Tensor* out;
  Tensor* save_mean;
  Tensor* save_invstd;
};

Error check_param(const Tensor* p, const Tensor& input, const char* op, const char* name) {
  if (p == nullptr) return Error::Ok;
  TE_CHECK_OR_RETURN(p->dim() == 1, Error::InvalidArgument, "%s: %s must be 1-d, got %d-d", op,
                     name, p->dim());
  return check_norm_param(p, input.dtype(), input.size(1), op, name);
}

double param_at(const Tensor* p, int64_t c, double fallback) {
  return p == nullptr ? fallback : load_as_double(*p, c * p->stride(0));
}

Error batch_norm_inference(const BatchNormArgs& a, const char* op) {
  const Tensor& x = *a.input;
  TE_CHECK_OR_RETURN(x.dim() >= 2, Error::InvalidArgument,
                     "%s: expected an input of rank >= 2 ([N, C, ...]), got %d-d", op, x.dim());
  TE_RETURN_IF_ERROR(check_param(a.weight, x, op, "weight"));
  TE_RETURN_IF_ERROR(check_param(a.bias, x, op, "bias"));
  TE_RETURN_IF_ERROR(check_param(a.mean, x, op, "running_mean"));
  TE_RETURN_IF_ERROR(check_param(a.var, x, op, "running_var"));
  TE_RETURN_IF_ERROR(expect_same_dtype(x, *a.out, "input", "out"));
  TE_RETURN_IF_ERROR(resize_like(*a.out, x));
  const int64_t empty[] = {0};
  TE_RETURN_IF_ERROR(resize_to(*a.save_mean, empty));
  TE_RETURN_IF_ERROR(resize_to(*a.save_invstd, empty));
  int64_t dims[kTensorDimensionLimit];
  size_t count = 0;
  for (int d = 0; d < x.dim(); ++d) {
    if (d != 1) dims[count++] = d;
  }
  ReductionPlan channels;  // one "output" per channel; lanes over N and space
  TE_RETURN_IF_ERROR(channels.init(x, {dims, count}, op, a.out));
  channels.bind_output(*a.out, /*keepdim=*/true);
  return switch_dtype_only<kFloatingTypes>(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* in = x.data_as<T>();
    T* out = a.out->mutable_data_as<T>();
    int64_t c = 0;
    channels.for_each_output([&](int64_t out_base, int64_t in_base) {
      const double invstd = 1.0 / std::sqrt(param_at(a.var, c, 1.0) + a.eps);
      const double alpha_d = param_at(a.weight, c, 1.0) * invstd;
      const C alpha = static_cast<C>(alpha_d);
      const C beta = static_cast<C>(param_at(a.bias, c, 0.0) - param_at(a.mean, c, 0.0) * alpha_d);
      channels.for_each_reduced_pair(in_base, out_base, [&](int64_t i, int64_t o) {
        out[o] = static_cast<T>(static_cast<C>(in[i]) * alpha + beta);
      });
      ++c;
    });
    return Error::Ok;
  });
}

}  // namespace

Error native_batch_norm_legit_no_training_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_native_batch_norm_legit_no_training.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 10));
  BatchNormArgs a;
  TE_ASSIGN_OR_RETURN(a.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a.weight, optional_tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(a.bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(a.mean, tensor_arg(args, 3, "running_mean"));
  TE_ASSIGN_OR_RETURN(a.var, tensor_arg(args, 4, "running_var"));
  TE_ASSIGN_OR_RETURN(a.eps, double_arg(args, 6, "eps"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, 7, "out0"));
  TE_ASSIGN_OR_RETURN(a.save_mean, tensor_arg(args, 8, "out1"));
  TE_ASSIGN_OR_RETURN(a.save_invstd, tensor_arg(args, 9, "out2"));
  return batch_norm_inference(a, kOp);
}

Error native_batch_norm_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "native_batch_norm.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 11));
  BatchNormArgs a;
  TE_ASSIGN_OR_RETURN(a.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a.weight, optional_tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(a.bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(a.mean, optional_tensor_arg(args, 3, "running_mean"));
  TE_ASSIGN_OR_RETURN(a.var, optional_tensor_arg(args, 4, "running_var"));
  TE_ASSIGN_OR_RETURN(bool training, bool_arg(args, 5, "training"));
  TE_ASSIGN_OR_RETURN(a.eps, double_arg(args, 7, "eps"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, 8, "out"));
  TE_ASSIGN_OR_RETURN(a.save_mean, tensor_arg(args, 9, "save_mean"));
  TE_ASSIGN_OR_RETURN(a.save_invstd, tensor_arg(args, 10, "save_invstd"));
  TE_CHECK_OR_RETURN(!training, Error::NotSupported, "%s: training=True is not supported", kOp);
  TE_CHECK_OR_RETURN(a.mean != nullptr && a.var != nullptr, Error::InvalidArgument,
                     "%s: inference needs running_mean and running_var", kOp);
  return batch_norm_inference(a, kOp);
}

}  // namespace native
}  // namespace torchedge
