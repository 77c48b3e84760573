// aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//     SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//     -> (Tensor(a!), Tensor(b!), Tensor(c!))
//
// Group normalization of an [N, C, *] input (HxW = the product of the
// trailing dims): the C channels split into `group` groups of C / group,
// and each (sample, group) is normalized over its channels and positions:
//   out0 = (x - mean) * rstd * weight[c] + bias[c],  rstd = 1 / sqrt(var + eps)
// with out1 = mean and out2 = rstd shaped [N, group] (biased variance), in
// the parameters' dtype or the input's (see the kernel). Statistics
// are two-pass in double; the affine step runs in float (double for
// float64). Floating dtypes; weight and bias have C elements and share
// input's dtype or are float32 for a 16-bit input. An empty group gives
// mean 0 and rstd NaN, as ATen. Any dim order.
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/normalization.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "native_group_norm.out";

struct GroupShape {
  int64_t n, c, hxw, groups;
};

// Calls f(x_offset, y_offset) for every position of dims [2, rank) of x and
// y (same sizes), relative to the (n, c) origin, in row-major order.
template <typename F>
void for_each_position(const Tensor& x, const Tensor& y, int64_t hxw, F&& f) {
  if (x.is_contiguous() && y.is_contiguous()) {
    for (int64_t s = 0; s < hxw; ++s) f(s, s);
    return;
  }
  int64_t idx[kTensorDimensionLimit] = {};
  int64_t xo = 0, yo = 0;
  for (int64_t s = 0; s < hxw; ++s) {
    f(xo, yo);
    for (int d = x.dim() - 1; d >= 2; --d) {
      xo += x.stride(d);
      yo += y.stride(d);
      if (++idx[d] < x.size(d)) break;
      xo -= x.size(d) * x.stride(d);
      yo -= y.size(d) * y.stride(d);
      idx[d] = 0;
    }
  }
}

template <typename T>
void group_norm(const Tensor& x, const Tensor* w, const Tensor* b, double eps,
                const GroupShape& g, Tensor& out, Tensor& mean, Tensor& rstd) {
  using C = compute_t<T>;
  const int64_t per_group = g.c / g.groups;
  const double count = static_cast<double>(per_group * g.hxw);
  const T* in = x.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const int64_t c0 = grp * per_group;
      auto each = [&](auto&& f) {  // f(channel, x_offset, y_offset) over the group
        for (int64_t c = c0; c < c0 + per_group; ++c) {
          const int64_t xb = n * x.stride(0) + c * x.stride(1);
          const int64_t yb = n * out.stride(0) + c * out.stride(1);
          for_each_position(x, out, g.hxw, [&](int64_t xo, int64_t yo) { f(c, xb + xo, yb + yo); });
        }
      };
      double mu = 0, inv = 0;
      two_pass_moments(
          [&](auto&& f) {
            each([&](int64_t, int64_t i, int64_t) { f(static_cast<double>(in[i])); });
          },
          count, eps, &mu, &inv);
      for (int64_t c = c0; c < c0 + per_group; ++c) {
        const double gamma = w == nullptr ? 1.0 : load_as_double(*w, c * w->stride(0));
        const double beta = b == nullptr ? 0.0 : load_as_double(*b, c * b->stride(0));
        // y = x * scale + shift: ATen folds the statistics into the affine step.
        const C scale = static_cast<C>(inv * gamma);
        const C shift = static_cast<C>(beta - mu * inv * gamma);
        const int64_t xb = n * x.stride(0) + c * x.stride(1);
        const int64_t yb = n * out.stride(0) + c * out.stride(1);
        for_each_position(x, out, g.hxw, [&](int64_t xo, int64_t yo) {
          y[yb + yo] = static_cast<T>(static_cast<C>(in[xb + xo]) * scale + shift);
        });
      }
      const int64_t at_mean = n * mean.stride(0) + grp * mean.stride(1);
      const int64_t at_rstd = n * rstd.stride(0) + grp * rstd.stride(1);
      store_from_double(mean, at_mean, mu);
      store_from_double(rstd, at_rstd, inv);
    }
  }
}

Error check_shape(const Tensor& x, const GroupShape& g) {
  TE_CHECK_OR_RETURN(x.dim() >= 2, Error::InvalidArgument,
                     "%s: expected an input of at least 2 dims, got %d", kOp, x.dim());
  TE_CHECK_OR_RETURN(x.size(0) == g.n && x.size(1) == g.c &&
                         static_cast<int64_t>(x.numel()) == g.n * g.c * g.hxw,
                     Error::InvalidArgument,
                     "%s: N=%lld, C=%lld, HxW=%lld do not match the input's shape", kOp,
                     static_cast<long long>(g.n), static_cast<long long>(g.c),
                     static_cast<long long>(g.hxw));
  TE_CHECK_OR_RETURN(g.groups > 0 && g.c % g.groups == 0, Error::InvalidArgument,
                     "%s: expected the number of channels (%lld) to be divisible by the number "
                     "of groups (%lld)",
                     kOp, static_cast<long long>(g.c), static_cast<long long>(g.groups));
  return Error::Ok;
}

}  // namespace

Error native_group_norm_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 11));
  TE_ASSIGN_OR_RETURN(Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(Tensor* w, optional_tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* b, optional_tensor_arg(args, 2, "bias"));
  GroupShape g;
  TE_ASSIGN_OR_RETURN(g.n, int_arg(args, 3, "N"));
  TE_ASSIGN_OR_RETURN(g.c, int_arg(args, 4, "C"));
  TE_ASSIGN_OR_RETURN(g.hxw, int_arg(args, 5, "HxW"));
  TE_ASSIGN_OR_RETURN(g.groups, int_arg(args, 6, "group"));
  TE_ASSIGN_OR_RETURN(double eps, double_arg(args, 7, "eps"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 8, "out0"));
  TE_ASSIGN_OR_RETURN(Tensor* mean, tensor_arg(args, 9, "out1"));
  TE_ASSIGN_OR_RETURN(Tensor* rstd, tensor_arg(args, 10, "out2"));
  TE_RETURN_IF_ERROR(check_shape(*x, g));
  TE_RETURN_IF_ERROR(check_norm_param(w, x->dtype(), g.c, kOp, "weight"));
  TE_RETURN_IF_ERROR(check_norm_param(b, x->dtype(), g.c, kOp, "bias"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x, *out, "input", "out0"));
  // Statistics take the parameters' dtype (float32 for mixed 16-bit input)
  // in eager, but torch's own shape function says input's dtype, which is
  // what an exported program plans: accept either.
  const Tensor* param = w != nullptr ? w : b;
  const ScalarType stat_dtype = param != nullptr ? param->dtype() : x->dtype();
  TE_CHECK_OR_RETURN((w == nullptr || w->dtype() == stat_dtype) &&
                         (b == nullptr || b->dtype() == stat_dtype),
                     Error::InvalidType, "%s: weight and bias must share one dtype", kOp);
  for (const Tensor* stat : {mean, rstd}) {
    TE_CHECK_OR_RETURN(stat->dtype() == stat_dtype || stat->dtype() == x->dtype(),
                       Error::InvalidType, "%s: %s has dtype %s, expected %s", kOp,
                       stat == mean ? "out1 (mean)" : "out2 (rstd)", to_string(stat->dtype()),
                       to_string(stat_dtype));
  }
  TE_RETURN_IF_ERROR(resize_like(*out, *x));
  const int64_t stat_sizes[] = {g.n, g.groups};
  TE_RETURN_IF_ERROR(resize_to(*mean, stat_sizes));
  TE_RETURN_IF_ERROR(resize_to(*rstd, stat_sizes));
  return switch_dtype_only<kFloatingTypes>(x->dtype(), kOp, [&](auto tag) {
    group_norm<decltype(tag)>(*x, w, b, eps, g, *out, *mean, *rstd);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
