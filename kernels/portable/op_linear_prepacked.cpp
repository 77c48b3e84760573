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
//
// torchedge::linear_prepacked_fused.out(Tensor input, Tensor weight_packed,
//     Tensor? bias, int out_features, Tensor? residual, bool gelu, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// The same layer with what followed it in the model folded in
// (python/torchedge/passes/linear_epilogue_fusion.py):
// out = act(input @ weight^T + bias + residual), act the exact GELU
// x/2 (1 + erf(x / sqrt 2)) (as aten::gelu computes it in float) when
// `gelu`, else the identity; residual None or M rows of N (any leading
// shape whose sizes multiply to M, the input's row count). Each value is
// ((sum + bias) + residual), the order addmm then add give.
#include "kernels/portable/support/gelu.h"
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

// What follows the sum of one output: the residual (None: nullptr) and the GELU.
struct Epilogue {
  const Tensor* residual = nullptr;
  bool gelu = false;
};

Error linear_prepacked(Span<EValue*> args, size_t out_index, const Epilogue& epi) {
  TE_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 1, "weight_packed"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(int64_t n, int_arg(args, 3, "out_features"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, out_index, "out"));
  TE_RETURN_IF_ERROR(check_arguments(*x, *w, bias, n));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "linear_prepacked.out: out"));
  int64_t out_sizes[kTensorDimensionLimit];
  int64_t rows = 1;
  for (int d = 0; d + 1 < x->dim(); ++d) {
    out_sizes[d] = x->size(d);
    rows *= x->size(d);
  }
  out_sizes[x->dim() - 1] = n;
  const Tensor* res = epi.residual;
  if (res != nullptr) {
    TE_RETURN_IF_ERROR(expect_dtype(*res, ScalarType::Float, "linear_prepacked_fused.out: residual"));
    TE_CHECK_OR_RETURN(res->dim() >= 1 && res->size(-1) == n && static_cast<int64_t>(res->numel()) == rows * n,
                       Error::InvalidArgument,
                       "linear_prepacked_fused.out: residual must hold %lld rows of %lld "
                       "(its last dim), one per input row",
                       static_cast<long long>(rows), static_cast<long long>(n));
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {out_sizes, static_cast<size_t>(x->dim())}));
  const int64_t k = x->size(-1), x_col = x->stride(-1), out_col = out->stride(-1);
  const float* xd = x->data_as<float>();
  const float* wd = w->data_as<float>();
  const float* bd = bias == nullptr ? nullptr : bias->data_as<float>();
  float* od = out->mutable_data_as<float>();
  const float* rd = res == nullptr ? nullptr : res->data_as<float>();
  const int64_t r_col = res == nullptr ? 0 : res->stride(-1);
  // One strip of 16 outputs at a time: the inner loop runs along a strip's
  // contiguous rows (vectorizable), each output summed in k order.
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = xd + row_offset(*x, r);
    float* outr = od + row_offset(*out, r);
    const float* resr = rd == nullptr ? nullptr : rd + row_offset(*res, r);
    for (int64_t n0 = 0; n0 < n; n0 += kStripWidth) {
      const float* strip = wd + n0 * k;  // strip n0 / 16 starts at (n0 / 16) * k * 16
      float acc[kStripWidth] = {};
      for (int64_t kk = 0; kk < k; ++kk) {
        const float xv = xr[kk * x_col];
        for (int64_t j = 0; j < kStripWidth; ++j) acc[j] += xv * strip[kk * kStripWidth + j];
      }
      for (int64_t j = 0; j < kStripWidth && n0 + j < n; ++j) {
        float v = bd == nullptr ? acc[j] : acc[j] + bd[n0 + j];
        if (resr != nullptr) v += resr[(n0 + j) * r_col];
        if (epi.gelu) v = gelu_exact(v);
        outr[(n0 + j) * out_col] = v;
      }
    }
  }
  return Error::Ok;
}

}  // namespace

Error linear_prepacked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  return linear_prepacked(args, 4, Epilogue{});
}

Error linear_prepacked_fused_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  Epilogue epi;
  TE_ASSIGN_OR_RETURN(epi.residual, optional_tensor_arg(args, 4, "residual"));
  TE_ASSIGN_OR_RETURN(epi.gelu, bool_arg(args, 5, "gelu"));
  return linear_prepacked(args, 6, epi);
}

}  // namespace native
}  // namespace torchedge
