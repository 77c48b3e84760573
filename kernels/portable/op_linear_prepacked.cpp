// torchedge::linear_prepacked.out(Tensor input, Tensor weight_packed, Tensor? bias,
//     int out_features, *, Tensor(a!) out) -> Tensor(a!)
//
// out[*, N] = input[*, K] @ weight^T + bias for a float32 linear layer whose
// [N, K] weight was packed ahead of time (python/torchedge/passes/
// weight_prepacking.py) as weight_packed [ceil(N / 16), K, 16]: strip s holds
// K rows of the 16 output columns s*16 .. s*16 + 15, so weight[n][k] is
// weight_packed[n / 16][k][n % 16] (columns past N are padding, never read).
// N = out_features. bias: None or [N]. Plain loops, input read through its
// strides; the optimized kernel feeds the layout to its GEMM unchanged.
// Errors: non-float32 tensors, input of rank 0, weight_packed not a
// contiguous [ceil(N / 16), K, 16], bias not [N], out_features < 0.
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kStripWidth = 16;

Error check_arguments(const Tensor& x, const Tensor& w, const Tensor* bias, int64_t n) {
  TE_CHECK_OR_RETURN(x.dim() >= 1, Error::InvalidArgument,
                     "linear_prepacked.out: input must have rank >= 1");
  TE_RETURN_IF_ERROR(expect_dtype(x, ScalarType::Float, "linear_prepacked.out: input"));
  TE_RETURN_IF_ERROR(expect_dtype(w, ScalarType::Float, "linear_prepacked.out: weight_packed"));
  TE_CHECK_OR_RETURN(n >= 0, Error::InvalidArgument,
                     "linear_prepacked.out: out_features must be >= 0, got %lld",
                     static_cast<long long>(n));
  const int64_t k = x.size(-1), strips = (n + kStripWidth - 1) / kStripWidth;
  TE_CHECK_OR_RETURN(w.dim() == 3 && w.size(0) == strips && w.size(1) == k &&
                         w.size(2) == kStripWidth && w.is_contiguous(),
                     Error::InvalidArgument,
                     "linear_prepacked.out: weight_packed must be a contiguous [%lld, %lld, %lld] "
                     "for out_features %lld and %lld input features",
                     static_cast<long long>(strips), static_cast<long long>(k),
                     static_cast<long long>(kStripWidth), static_cast<long long>(n),
                     static_cast<long long>(k));
  if (bias != nullptr) {
    TE_RETURN_IF_ERROR(expect_dtype(*bias, ScalarType::Float, "linear_prepacked.out: bias"));
    TE_CHECK_OR_RETURN(bias->dim() == 1 && bias->size(0) == n, Error::InvalidArgument,
                       "linear_prepacked.out: bias must be [%lld]", static_cast<long long>(n));
  }
  return Error::Ok;
}

// Element offset of row `row` (row-major over the leading dims) of `t`.
int64_t row_offset(const Tensor& t, int64_t row) {
  int64_t offset = 0;
  for (int d = t.dim() - 2; d >= 0; --d) {
    offset += row % t.size(d) * t.stride(d);
    row /= t.size(d);
  }
  return offset;
}

}  // namespace

Error linear_prepacked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 1, "weight_packed"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(int64_t n, int_arg(args, 3, "out_features"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(check_arguments(*x, *w, bias, n));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "linear_prepacked.out: out"));
  int64_t out_sizes[kTensorDimensionLimit];
  int64_t rows = 1;
  for (int d = 0; d + 1 < x->dim(); ++d) {
    out_sizes[d] = x->size(d);
    rows *= x->size(d);
  }
  out_sizes[x->dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(*out, {out_sizes, static_cast<size_t>(x->dim())}));
  const int64_t k = x->size(-1), x_col = x->stride(-1), out_col = out->stride(-1);
  const float* xd = x->data_as<float>();
  const float* wd = w->data_as<float>();
  const float* bd = bias == nullptr ? nullptr : bias->data_as<float>();
  float* od = out->mutable_data_as<float>();
  // One strip of 16 outputs at a time: the inner loop runs along a strip's
  // contiguous rows (vectorizable), each output summed in k order.
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = xd + row_offset(*x, r);
    float* outr = od + row_offset(*out, r);
    for (int64_t n0 = 0; n0 < n; n0 += kStripWidth) {
      const float* strip = wd + n0 * k;  // strip n0 / 16 starts at (n0 / 16) * k * 16
      float acc[kStripWidth] = {};
      for (int64_t kk = 0; kk < k; ++kk) {
        const float xv = xr[kk * x_col];
        for (int64_t j = 0; j < kStripWidth; ++j) acc[j] += xv * strip[kk * kStripWidth + j];
      }
      for (int64_t j = 0; j < kStripWidth && n0 + j < n; ++j) {
        outr[(n0 + j) * out_col] = bd == nullptr ? acc[j] : acc[j] + bd[n0 + j];
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
