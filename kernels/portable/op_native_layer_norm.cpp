// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//     Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//     -> (Tensor(a!), Tensor(b!), Tensor(c!))
//
// Normalizes over the trailing dims named by normalized_shape:
//   out0 = (x - mean) * rstd * weight + bias,  rstd = 1 / sqrt(var + eps)
// with out1 = mean and out2 = rstd shaped like input with the normalized
// dims set to 1, in the parameters' dtype (input's when there are none), as
// ATen, or in the input's dtype (what export declares for float32
// parameters of a 16-bit input). Statistics are two-pass in
// double; the affine step runs in float (double for float64). Floating
// dtypes; weight/bias match normalized_shape and share input's dtype or are
// float32 for a 16-bit input. An empty row gives mean 0 and rstd NaN, as ATen.
#include <cmath>
#include <initializer_list>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/normalization.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "native_layer_norm.out";

// Offset of row-major index `flat` over dims [first, first + count) of t.
int64_t offset_of(const Tensor& t, int first, int count, int64_t flat) {
  int64_t off = 0;
  for (int d = first + count - 1; d >= first; --d) {
    off += (flat % t.size(d)) * t.stride(d);
    flat /= t.size(d);
  }
  return off;
}

Error check_shapes(const Tensor& x, Span<const int64_t> shape, const Tensor* w,
                   const Tensor* b, int64_t* n) {
  const int k = static_cast<int>(shape.size());
  TE_CHECK_OR_RETURN(k >= 1 && k <= x.dim(), Error::InvalidArgument,
                     "%s: normalized_shape must have 1..%d entries, got %d", kOp, x.dim(), k);
  *n = 1;
  for (int i = 0; i < k; ++i) {
    TE_CHECK_OR_RETURN(x.size(x.dim() - k + i) == shape[i], Error::InvalidArgument,
                       "%s: normalized_shape[%d] = %lld does not match input size %d", kOp, i,
                       static_cast<long long>(shape[i]), x.size(x.dim() - k + i));
    *n *= shape[i];
  }
  TE_RETURN_IF_ERROR(check_norm_param(w, x.dtype(), *n, kOp, "weight"));
  return check_norm_param(b, x.dtype(), *n, kOp, "bias");
}

// P: the parameters' element type (T or float).
template <typename T, typename P>
void layer_norm(const Tensor& x, const Tensor* w, const Tensor* b, double eps, int k,
                const ReductionPlan& rows, Tensor& out, Tensor& mean, Tensor& rstd) {
  using C = compute_t<T>;
  const int64_t n = rows.reduced_numel();
  const int lead = x.dim() - k;
  const T* in = x.data_as<T>();
  T* y = out.mutable_data_as<T>();
  const P* wp = w == nullptr ? nullptr : w->data_as<P>();
  const P* bp = b == nullptr ? nullptr : b->data_as<P>();
  const bool w_flat = w == nullptr || w->is_contiguous();
  const bool b_flat = b == nullptr || b->is_contiguous();
  int64_t row = 0;
  rows.for_each_output([&](int64_t out_base, int64_t in_base) {
    double sum = 0;
    rows.for_each_reduced(in_base, [&](int64_t i) { sum += static_cast<double>(in[i]); });
    const double mu = n == 0 ? 0.0 : sum / static_cast<double>(n);
    double squares = 0;
    rows.for_each_reduced(in_base, [&](int64_t i) {
      const double d = static_cast<double>(in[i]) - mu;
      squares += d * d;
    });
    const double inv = 1.0 / std::sqrt(squares / static_cast<double>(n) + eps);
    const C m = static_cast<C>(mu), r = static_cast<C>(inv);
    int64_t j = 0;
    rows.for_each_reduced_pair(in_base, out_base, [&](int64_t i, int64_t o) {
      C v = (static_cast<C>(in[i]) - m) * r;
      if (wp != nullptr) v *= static_cast<C>(wp[w_flat ? j : offset_of(*w, 0, k, j)]);
      if (bp != nullptr) v += static_cast<C>(bp[b_flat ? j : offset_of(*b, 0, k, j)]);
      y[o] = static_cast<T>(v);
      ++j;
    });
    store_from_double(mean, offset_of(mean, 0, lead, row), mu);
    store_from_double(rstd, offset_of(rstd, 0, lead, row), inv);
    ++row;
  });
}

}  // namespace

Error native_layer_norm_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> shape, int_list_arg(args, 1, "normalized_shape"));
  TE_ASSIGN_OR_RETURN(Tensor* w, optional_tensor_arg(args, 2, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* b, optional_tensor_arg(args, 3, "bias"));
  TE_ASSIGN_OR_RETURN(double eps, double_arg(args, 4, "eps"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out0"));
  TE_ASSIGN_OR_RETURN(Tensor* mean, tensor_arg(args, 6, "out1"));
  TE_ASSIGN_OR_RETURN(Tensor* rstd, tensor_arg(args, 7, "out2"));
  int64_t n = 0;
  TE_RETURN_IF_ERROR(check_shapes(*x, shape, w, b, &n));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x, *out, "input", "out0"));
  // Statistics take the parameters' dtype (float32 for mixed 16-bit input).
  const Tensor* param = w != nullptr ? w : b;
  const ScalarType stat_dtype = param != nullptr ? param->dtype() : x->dtype();
  TE_CHECK_OR_RETURN((w == nullptr || w->dtype() == stat_dtype) &&
                         (b == nullptr || b->dtype() == stat_dtype),
                     Error::InvalidType, "%s: weight and bias must share one dtype", kOp);
  // Eager returns float32 statistics for a 16-bit input with float32
  // parameters, but the exporter's meta function declares them in the
  // input's dtype; either is accepted (each is written in its own dtype).
  for (const Tensor* stat : {mean, rstd}) {
    TE_CHECK_OR_RETURN(stat->dtype() == stat_dtype || stat->dtype() == x->dtype(),
                       Error::InvalidType, "%s: %s must be %s or %s, got %s", kOp,
                       stat == mean ? "out1 (mean)" : "out2 (rstd)", to_string(stat_dtype),
                       to_string(x->dtype()), to_string(stat->dtype()));
  }
  const int k = static_cast<int>(shape.size());
  int64_t dims[kTensorDimensionLimit];
  for (int i = 0; i < k; ++i) dims[i] = x->dim() - k + i;
  TE_RETURN_IF_ERROR(resize_like(*out, *x));
  ReductionPlan rows;  // one "output" per row; lanes over the normalized dims
  TE_RETURN_IF_ERROR(rows.init(*x, {dims, static_cast<size_t>(k)}, kOp, out));
  int64_t stat_sizes[kTensorDimensionLimit];
  const size_t stat_rank = rows.output_sizes(/*keepdim=*/true, stat_sizes);
  TE_RETURN_IF_ERROR(resize_to(*mean, {stat_sizes, stat_rank}));
  TE_RETURN_IF_ERROR(resize_to(*rstd, {stat_sizes, stat_rank}));
  rows.bind_output(*out, /*keepdim=*/true);
  const bool float_params = stat_dtype != x->dtype();  // float32 params, 16-bit input
  return switch_dtype_only<kFloatingTypes>(x->dtype(), kOp, [&](auto tag) {
    using T = decltype(tag);
    if (float_params) {
      layer_norm<T, float>(*x, w, b, eps, k, rows, *out, *mean, *rstd);
    } else {
      layer_norm<T, T>(*x, w, b, eps, k, rows, *out, *mean, *rstd);
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
